#!/usr/bin/env bash
# Builds Jaeger all-in-one (the OTLP receiver the OpenTelemetry export is
# tested against, cmd/bench/otlp_test.go) from the Go module proxy into a
# tool folder: the module is downloaded by `go mod download` and built with
# `go build` in its own module (its go.mod has replace directives, which
# `go install pkg@version` refuses). Nothing is vendored. Idempotent: a
# binary of the pinned version present is kept.
# Variables: RB_JAEGER_DIR (default /var/tmp/reasonbench-jaeger): the
# binary goes to $RB_JAEGER_DIR/bin/jaeger.
set -euo pipefail
VERSION=v1.76.0
DIR=${RB_JAEGER_DIR:-/var/tmp/reasonbench-jaeger}
BIN=$DIR/bin/jaeger
say() { echo "install-jaeger: $*"; }
if [ -x "$BIN" ] && [ "$(cat "$DIR/bin/VERSION" 2>/dev/null)" = "$VERSION" ]; then
	say "present ($BIN $VERSION)"
	exit 0
fi
mkdir -p "$DIR/bin"
src=$(go mod download -json "github.com/jaegertracing/jaeger@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "install-jaeger: go mod download github.com/jaegertracing/jaeger@$VERSION failed" >&2; exit 1; }
say "building jaeger $VERSION (a few minutes the first time)"
# The module's own go.sum pins its dependencies; GOFLAGS=-mod=mod lets go
# resolve any the sum lacks without writing into the read-only module cache.
(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$BIN.tmp" ./cmd/jaeger)
mv "$BIN.tmp" "$BIN"
echo "$VERSION" > "$DIR/bin/VERSION"
say "installed $BIN"
