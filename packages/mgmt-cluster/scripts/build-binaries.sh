#!/usr/bin/env bash
# Builds etcd, kube-apiserver and kube-controller-manager from Go modules (pinned in ../go/*/go.mod) into
# $CAPZ_CACHE_DIR/bin/<key>/, where <key> hashes the wrapper modules. A build whose key already exists is skipped,
# so re-runs and fresh clones on the same machine reuse the binaries. GOMODCACHE/GOCACHE are Go's own (outside the repo).
# One build per key at a time (scripts/lib/cache-entry.sh): a second caller waits for the first and reuses its build.
# Prints the binary directory on stdout; progress goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
# shellcheck source=../../../scripts/lib/cache-entry.sh
source "$here/../../scripts/lib/cache-entry.sh"
command -v go >/dev/null || { echo "build-binaries: Go is required (go 1.25+ on PATH)" >&2; exit 1; }
key=$(cat "$here"/go/kube/go.mod "$here"/go/kube/go.sum "$here"/go/etcd/go.mod "$here"/go/etcd/go.sum "$0" \
  | sha256sum | cut -c1-16)
out="$cache/bin/$key"
built() { [ -x "$out/kube-apiserver" ] && [ -x "$out/kube-controller-manager" ] && [ -x "$out/etcd" ]; }
if built; then echo "$out"; exit 0; fi
# --modules: only the Go modules the build needs, fetched (scripts/fetch-go-modules.sh): `go list -deps` of what it
# builds loads, so fetches, the modules of exactly the packages it compiles. No lock: the go command locks each module
# version while it fetches it.
if [ "${1:-}" = --modules ]; then
  export CGO_ENABLED=0 GOFLAGS=-mod=mod
  (cd "$here/go/etcd" && go list -deps go.etcd.io/etcd/server/v3 >/dev/null)
  (cd "$here/go/kube" && go list -deps k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager >/dev/null)
  exit 0
fi
cache_entry_lock "$out" build-binaries
if built; then echo "$out"; exit 0; fi
tmp=$(cache_entry_tmp "$out")
export CGO_ENABLED=0 GOFLAGS=-mod=mod
# No DWARF from the compiler either: the linker drops it anyway (-ldflags -s -w), and generating it cost ~15% of the
# compile's CPU on an empty GOCACHE.
gcflags=all=-dwarf=false
start=$(date +%s)
kver=$(cd "$here/go/kube" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
ever=$(cd "$here/go/etcd" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
case "$kver" in v1.*.*) ;; *) echo "build-binaries: cannot read the k8s.io/kubernetes version ($kver)" >&2; exit 1;; esac
minor=$(echo "$kver" | cut -d. -f2)
# Version ldflags as hack/lib/version.sh sets them: without them the server reports an invalid semver.
ldf="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldf="$ldf -X $pkg.gitVersion=$kver -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean"
  ldf="$ldf -X $pkg.buildDate=2026-01-01T00:00:00Z"
done
echo "build-binaries: building etcd $ever" >&2
cpu_time etcd_cpu env -C "$here/go/etcd" go build -trimpath -gcflags "$gcflags" -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3
echo "build-binaries: building kube-apiserver and kube-controller-manager $kver (cold: ~10-20 min on 2 cores)" >&2
cpu_time kube_cpu env -C "$here/go/kube" go build -trimpath -gcflags "$gcflags" -ldflags "$ldf" -o "$tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
cache_entry_publish "$tmp" "$out"
echo "build-binaries: done in $(( $(date +%s) - start ))s (etcd $etcd_cpu; Kubernetes $kube_cpu) -> $out" >&2
echo "$out"
