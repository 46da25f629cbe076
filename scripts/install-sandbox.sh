#!/usr/bin/env bash
# Installs what package sandbox runs model-written programs with: Debian's
# bubblewrap (bwrap) and python3 at /usr/bin/python3 (sandbox/bwrap.go).
# Idempotent: installs only what is missing. Then checks that bwrap can
# start a sandbox here, which needs unprivileged user namespaces; bench
# refuses to run code without one (there is no unsandboxed fall-back).
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
[ -x /usr/bin/python3 ] || need+=(python3)
if [ ${#need[@]} -eq 0 ]; then
	echo "install-sandbox: $(command -v bwrap) and /usr/bin/python3 present"
else
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
	echo "install-sandbox: installed ${need[*]}"
fi
# As bench does when it runs as root, try it as an unprivileged user.
# (--disable-userns and --size, which bench uses, need bubblewrap 0.8.0.)
probe=(bwrap --unshare-all --unshare-user --disable-userns --die-with-parent --ro-bind /usr /usr
	--symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev --size 1048576 --tmpfs /tmp
	-- /usr/bin/python3 -c pass)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	probe=(setpriv --reuid 65534 --regid 65534 --clear-groups "${probe[@]}")
fi
if ! err=$(cd / && "${probe[@]}" 2>&1); then
	echo "install-sandbox: bubblewrap cannot start a sandbox here: ${err%%$'\n'*}" >&2
	echo "install-sandbox: it needs unprivileged user namespaces (sysctl user.max_user_namespaces > 0; kernel.unprivileged_userns_clone=1 where that exists)" >&2
	exit 1
fi
echo "install-sandbox: bubblewrap starts a sandbox"
