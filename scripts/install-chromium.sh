#!/usr/bin/env bash
# Installs Debian's chromium for the bench view browser test (view/browser_test.go).
# Idempotent: does nothing when a Chromium is already on PATH.
set -euo pipefail
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		echo "install-chromium: $(command -v "$b") present"
		exit 0
	fi
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
echo "install-chromium: installed $(command -v chromium)"
