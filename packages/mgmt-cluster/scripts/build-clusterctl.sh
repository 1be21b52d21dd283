#!/usr/bin/env bash
# Builds clusterctl from Go modules (pinned in ../go/clusterctl/go.mod) into $CAPZ_CACHE_DIR/bin/clusterctl-<key>/,
# where <key> hashes the wrapper module and this script; an existing build is reused. Not part of the test suite's
# build stage: only the benchmark (packages/bench) needs it. Prints the binary path on stdout; progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
# shellcheck source=../../../scripts/lib/cache-entry.sh
source "$here/../../scripts/lib/cache-entry.sh"
command -v go >/dev/null || { echo "build-clusterctl: Go is required (go 1.25+ on PATH)" >&2; exit 1; }
key=$(cat "$here"/go/clusterctl/go.mod "$here"/go/clusterctl/go.sum "$0" | sha256sum | cut -c1-16)
out="$cache/bin/clusterctl-$key"
if [ -x "$out/clusterctl" ]; then echo "$out/clusterctl"; exit 0; fi
# One build per key at a time: a second caller waits for the first and reuses its build.
cache_entry_lock "$out" build-clusterctl
if [ -x "$out/clusterctl" ]; then echo "$out/clusterctl"; exit 0; fi
tmp=$(cache_entry_tmp "$out")
export CGO_ENABLED=0 GOFLAGS=-mod=mod
start=$(date +%s)
ver=$(cd "$here/go/clusterctl" && go list -m -f '{{.Version}}' sigs.k8s.io/cluster-api)
case "$ver" in v1.*.*) ;; *) echo "build-clusterctl: cannot read the sigs.k8s.io/cluster-api version ($ver)" >&2; exit 1;; esac
# The version ldflags of CAPI's hack/version.sh.
pkg=sigs.k8s.io/cluster-api/version
ldf="-s -w -X $pkg.gitVersion=$ver -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(echo "$ver" | cut -d. -f2)"
ldf="$ldf -X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean"
ldf="$ldf -X $pkg.buildDate=2026-01-01T00:00:00Z"
echo "build-clusterctl: building clusterctl $ver (cold: a few minutes on 2 cores)" >&2
(cd "$here/go/clusterctl" && go build -trimpath -ldflags "$ldf" -o "$tmp/clusterctl" sigs.k8s.io/cluster-api/cmd/clusterctl)
cache_entry_publish "$tmp" "$out"
echo "build-clusterctl: done in $(( $(date +%s) - start ))s -> $out" >&2
echo "$out/clusterctl"
