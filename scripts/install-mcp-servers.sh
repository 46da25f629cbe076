#!/usr/bin/env bash
# Installs the npm MCP servers the tools package's tests act with
# (tools/npm_test.go: server-everything over stdio and streamable HTTP,
# server-filesystem over a temporary folder; BENCH_REQUIRE_MCP=1 makes
# them mandatory). Idempotent: installs Debian's nodejs and npm only when
# node is missing, and runs `npm ci` (the versions pinned in
# package-lock.json) only when an installed server is not that version.
set -euo pipefail
cd "$(dirname "$0")/mcp-servers"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
ok=1
for p in server-everything server-filesystem; do
	want=$(node -p "require('./package-lock.json').packages['node_modules/@modelcontextprotocol/$p'].version")
	have=$(node -p "try { require('./node_modules/@modelcontextprotocol/$p/package.json').version } catch { '' }")
	if [ "$have" != "$want" ]; then ok=0; fi
done
if [ "$ok" = 1 ]; then
	echo "install-mcp-servers: present ($(node --version))"
	exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "install-mcp-servers: installed server-everything and server-filesystem ($(node --version))"
