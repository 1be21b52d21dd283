#!/usr/bin/env bash
# Builds Gitea from its Go module (the version pinned below) into $CAPZ_CACHE_DIR/gitea/<key>/, where <key> hashes
# this script (so the pin). A build whose key already exists is skipped. Gitea's go.mod has `replace` directives, which
# a wrapper module (as packages/mgmt-cluster/go/* use) would ignore and `go install pkg@version` refuses, so the module's
# own source is built: `go mod download` puts it in GOMODCACHE, a writable copy is built with its own go.mod/go.sum.
# cgo sqlite (tags sqlite sqlite_unlock_notify) for a database without a server. The copy stays beside the binary:
# without bindata, Gitea reads its templates, locales and public files from STATIC_ROOT_PATH (that copy).
# Prints the output directory (gitea binary + src/) on stdout; progress goes to stderr.
set -euo pipefail
version=v1.26.0
tags='sqlite sqlite_unlock_notify' # cgo SQLite: a database without a server
cache=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
# shellcheck source=../../../scripts/lib/cache-entry.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/cache-entry.sh"
command -v go >/dev/null || { echo "build-gitea: Go is required (go 1.25+ on PATH)" >&2; exit 1; }
command -v gcc >/dev/null || { echo "build-gitea: gcc is required (cgo sqlite)" >&2; exit 1; }
key=$(sha256sum < "$0" | cut -c1-16)
out="$cache/gitea/$key"
if [ -x "$out/gitea" ] && [ -d "$out/src/options" ]; then
  echo "$out"; exit 0
fi
# --modules: only the Go modules the build needs, fetched (scripts/fetch-go-modules.sh): Gitea's module, then
# `go list -deps` of its main package with the build's tags, in the module's own (read-only) folder, which loads, so
# fetches, the modules of exactly the packages the build compiles. No lock: the go command locks each module version
# while it fetches it.
if [ "${1:-}" = --modules ]; then
  dir=$(GOFLAGS=-mod=mod go mod download -json "code.gitea.io/gitea@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && [ -f "$dir/go.mod" ] || { echo "build-gitea: go mod download gave no module directory" >&2; exit 1; }
  (cd "$dir" && CGO_ENABLED=1 go list -tags "$tags" -deps . >/dev/null)
  exit 0
fi
# One build at a time per key: scripts/test.sh builds in the background while a test may ask for Gitea (it waits).
cache_entry_lock "$out" build-gitea
if [ -x "$out/gitea" ] && [ -d "$out/src/options" ]; then
  echo "$out"; exit 0
fi
tmp=$(cache_entry_tmp "$out")
start=$(date +%s)
echo "build-gitea: downloading code.gitea.io/gitea $version" >&2
dir=$(GOFLAGS=-mod=mod go mod download -json "code.gitea.io/gitea@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] && [ -f "$dir/go.mod" ] || { echo "build-gitea: go mod download gave no module directory" >&2; exit 1; }
cp -r "$dir" "$tmp/src" && chmod -R u+w "$tmp/src"
cd "$tmp/src"
echo "build-gitea: building (cold: minutes on 2 cores; the modules it lacks are fetched first)" >&2
ldf="-s -w -X main.Version=${version#v} -X 'main.Tags=$tags'"
# No DWARF from the compiler: the linker drops it anyway (-s -w), and generating it costs ~15% of a compile's CPU
# (packages/mgmt-cluster/scripts/build-controllers.sh).
cpu_time cpu env CGO_ENABLED=1 go build -trimpath -gcflags all=-dwarf=false -tags "$tags" -ldflags "$ldf" -o "$tmp/gitea" .
cd "$cache"
cache_entry_publish "$tmp" "$out"
echo "build-gitea: done in $(( $(date +%s) - start ))s, $cpu -> $out" >&2
echo "$out"
