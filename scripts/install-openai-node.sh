#!/usr/bin/env bash
# Installs the official npm openai client that scripts/openai-node/check.mjs
# uses to check bench's OpenAI-compatible endpoints (cmd/bench's
# TestServeSimOpenAINodeClient; BENCH_REQUIRE_NODE=1 makes it mandatory).
# Idempotent: installs Debian's nodejs and npm only when node is missing,
# and runs `npm ci` (the version pinned in package-lock.json) only when the
# installed openai module is not that version.
set -euo pipefail
cd "$(dirname "$0")/openai-node"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
want=$(node -p 'require("./package-lock.json").packages["node_modules/openai"].version')
have=$(node -p 'try { require("./node_modules/openai/package.json").version } catch { "" }')
if [ "$have" = "$want" ]; then
	echo "install-openai-node: openai $have present ($(node --version))"
	exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "install-openai-node: installed openai $want ($(node --version))"
