#!/usr/bin/env bash
# Builds the real Cluster API, CAPZ and ASO managers from Go modules (pinned in ../go/managers/go.mod, as in CAPZ
# v1.26.0's own go.mod) into $CAPZ_CACHE_DIR/bin/controllers-<key>/, where <key> hashes the wrapper module and this
# script. One module for the three: one set of dependency versions, so what they share is compiled once. Binaries already in that directory are reused, so re-runs and fresh clones on the same
# machine skip the build. Not part of the test suite's build stage (yet): see ../README.md "The real controllers".
#
#   build-controllers.sh [capi] [capz] [aso]   # default: all three, one at a time (ASO alone peaks near 5.5 GB)
#
# Output binaries: capi-manager, capz-manager, aso-controller. Prints the binary directory on stdout; progress
# (with each build's wall time) goes to stderr. Go builds run under `nice -n 19` with GOMAXPROCS=2 unless the caller
# sets CAPZ_GO_NICE / GOMAXPROCS: the machine is shared.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
# shellcheck source=../../../scripts/lib/cache-entry.sh
source "$here/../../scripts/lib/cache-entry.sh"
command -v go >/dev/null || { echo "build-controllers: Go is required (go 1.25+ on PATH)" >&2; exit 1; }
mod="$here/go/managers"
key=$(cat "$mod/go.mod" "$mod/go.sum" "$0" | sha256sum | cut -c1-16)
out="$cache/bin/controllers-$key"
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(capi capz aso)
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOMAXPROCS=${GOMAXPROCS:-2}
# No DWARF from the compiler either: the linker drops it anyway (-ldflags -s -w), and generating it cost ~15% of the
# compile's CPU (k8s.io/client-go/kubernetes from an empty GOCACHE: 104.8 -> 89.6 CPU-seconds).
gcflags=all=-dwarf=false
nice_n=${CAPZ_GO_NICE:-19}
mkdir -p "$out"

modver() { (cd "$mod" && go list -m -f '{{.Version}}' "$1"); }

build_one() { # <name> <binary> <package> <ldflags>
  local name=$1 bin=$2 pkg=$3 ldf=$4 start
  if [ -x "$out/$bin" ]; then echo "build-controllers: $bin cached" >&2; return 0; fi
  # One build per binary at a time: a second caller waits for the first and reuses its binary.
  cache_entry_lock "$out/$bin" build-controllers
  if [ -x "$out/$bin" ]; then echo "build-controllers: $bin built by the other caller" >&2; return 0; fi
  start=$(date +%s)
  echo "build-controllers: building $name ($pkg)" >&2
  local tmp; tmp=$(cache_entry_tmp "$out/$bin")
  local cpu
  cpu_time cpu env -C "$mod" nice -n "$nice_n" go build -trimpath -gcflags "$gcflags" -ldflags "$ldf" -o "$tmp/$bin" "$pkg"
  mv "$tmp/$bin" "$out/$bin" && rmdir "$tmp"
  echo "build-controllers: $bin done in $(( $(date +%s) - start ))s, $cpu ($(du -h "$out/$bin" | cut -f1))" >&2
}

# Version ldflags as each project's release build sets them (CAPI/CAPZ hack/version.sh, ASO's Taskfile): without
# them the managers report "dev"/empty versions (harmless, but logs and user agents read better with them).
semver_ldflags() { # <version package> <version>
  local pkg=$1 ver=$2
  echo "-s -w -X $pkg.gitVersion=$ver -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(echo "$ver" | cut -d. -f2)" \
    "-X $pkg.gitCommit=0000000000000000000000000000000000000000 -X $pkg.gitTreeState=clean" \
    "-X $pkg.buildDate=2026-01-01T00:00:00Z"
}

for w in "${which[@]}"; do
  case "$w" in
    capi)
      ver=$(modver sigs.k8s.io/cluster-api)
      build_one "Cluster API $ver core manager" capi-manager sigs.k8s.io/cluster-api \
        "$(semver_ldflags sigs.k8s.io/cluster-api/version "$ver")" ;;
    capz)
      ver=$(modver sigs.k8s.io/cluster-api-provider-azure)
      build_one "CAPZ $ver manager" capz-manager sigs.k8s.io/cluster-api-provider-azure \
        "$(semver_ldflags sigs.k8s.io/cluster-api-provider-azure/version "$ver")" ;;
    aso)
      ver=$(modver github.com/Azure/azure-service-operator/v2)
      build_one "ASO $ver controller (cold: ~7 min, ~5.5 GB peak)" aso-controller \
        github.com/Azure/azure-service-operator/v2/cmd/controller \
        "-s -w -X github.com/Azure/azure-service-operator/v2/internal/version.BuildVersion=$ver" ;;
    *) echo "build-controllers: unknown controller '$w' (capi, capz, aso)" >&2; exit 2 ;;
  esac
done
echo "$out"
