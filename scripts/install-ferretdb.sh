#!/usr/bin/env bash
# Builds FerretDB v1.24.2 from the Go module proxy into the tool cache (outside the repo,
# so later runs and fresh clones on the same machine skip the build).
# Why not `go install`: the module zip lacks build/version/version.txt and the binary
# panics at start, so we copy the module source out of the cache and write that file.
set -euo pipefail
VERSION=v1.24.2
CACHE_DIR=${TEAMCHAT_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/teamchat}
BIN="$CACHE_DIR/bin/ferretdb"
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
if ! command -v go >/dev/null 2>&1; then
  echo "FerretDB not found and Go toolchain missing: install Go (apt-get install golang) or set MONGO_URL to an existing MongoDB" >&2
  exit 1
fi
mkdir -p "$CACHE_DIR/bin"
WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
echo "[provision] downloading FerretDB $VERSION source from the Go module proxy..." >&2
cd "$WORK"
go mod init ferretdb-fetch >/dev/null 2>&1
GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$VERSION" > mod.json
SRC=$(sed -n 's/.*"Dir": "\(.*\)".*/\1/p' mod.json | head -1)
[ -d "$SRC" ] || { echo "FerretDB module download failed (see above); check access to the Go module proxy or set MONGO_URL" >&2; exit 1; }
cp -r "$SRC" "$WORK/src"
chmod -R u+w "$WORK/src"
echo "$VERSION" > "$WORK/src/build/version/version.txt"
cd "$WORK/src"
echo "[provision] compiling FerretDB (first run only, takes a few minutes)..." >&2
if ! go build -o "$BIN.tmp" ./cmd/ferretdb 2> "$WORK/build.log"; then
  echo "[provision] local Go could not build FerretDB; retrying with the toolchain its go.mod names (GOTOOLCHAIN=go1.24.3)..." >&2
  GOTOOLCHAIN=go1.24.3 go build -o "$BIN.tmp" ./cmd/ferretdb || {
    tail -20 "$WORK/build.log" >&2
    echo "FerretDB build failed: see the errors above; set MONGO_URL to an existing MongoDB to skip it" >&2; exit 1; }
fi
mv "$BIN.tmp" "$BIN"
echo "[provision] FerretDB built: $BIN" >&2
echo "$BIN"
