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
trimmer="$here/go/aso-trim"
key=$(cat "$mod/go.mod" "$mod/go.sum" "$0" "$trimmer/go.mod" "$trimmer/main.go" | sha256sum | cut -c1-16)
out="$cache/bin/controllers-$key"
which=("$@")
# --modules: only the Go modules the build needs, fetched (scripts/fetch-go-modules.sh): `go list -deps` of what it
# builds loads, so fetches, the modules of exactly the packages it compiles (controller-gen's too, which
# gen-aso-crds.sh builds for the lane). No lock: the go command locks each module version while it fetches it.
if [ "${1:-}" = --modules ]; then
  export CGO_ENABLED=0 GOFLAGS=-mod=mod
  [ -x "$out/capi-manager" ] && [ -x "$out/capz-manager" ] && [ -x "$out/aso-controller" ] ||
    (cd "$mod" && go list -deps sigs.k8s.io/cluster-api sigs.k8s.io/cluster-api-provider-azure \
      github.com/Azure/azure-service-operator/v2/cmd/controller >/dev/null)
  (cd "$here/go/controller-tools" && go list -deps sigs.k8s.io/controller-tools/cmd/controller-gen >/dev/null)
  exit 0
fi
[ ${#which[@]} -gt 0 ] || which=(capi capz aso)
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOMAXPROCS=${GOMAXPROCS:-2}
# No DWARF from the compiler either: the linker drops it anyway (-ldflags -s -w), and generating it cost ~15% of the
# compile's CPU (k8s.io/client-go/kubernetes from an empty GOCACHE: 104.8 -> 89.6 CPU-seconds).
gcflags=all=-dwarf=false
nice_n=${CAPZ_GO_NICE:-19}
mkdir -p "$out"

modver() { (cd "$mod" && go list -m -f '{{.Version}}' "$1"); }

# ASO's controller registers every API group ASO has (v2/internal/controllers/controller_resources_gen.go imports
# 413 API packages), and the lane runs it with --crd-management=none and a --crd-pattern of CAPZ's kinds only
# (src/controllers/managers.ts ASO_CRD_PATTERN), so it reconciles, converts and validates those groups alone. The
# managers are built from a copy of the wrapper module whose ASO is a copy of ASO's module with that file trimmed to
# these groups (go/aso-trim): the rest of ASO's API, most of what the three compile, is never compiled
# (docs/real-controllers.md#trimmed-aso). The same groups as ASO_CRD_PATTERN's: a test compares them.
aso_groups=(containerservice kubernetesconfiguration network resources)
build_mod=""
build_module() { # sets build_mod: the wrapper module's copy with ASO trimmed, made once per run of this script
  [ -z "$build_mod" ] || return 0
  local asodir gen
  build_mod=$(mktemp -d "$cache/bin/controllers-src.XXXXXX")
  # The copy's folders are read-only like the module cache's (its files are the cache's own, linked: left as they are).
  trap 'find "$build_mod" -type d -exec chmod u+w {} + 2>/dev/null; rm -rf "$build_mod"' EXIT
  asodir=$(cd "$mod" && go list -m -f '{{.Dir}}' github.com/Azure/azure-service-operator/v2)
  [ -n "$asodir" ] && [ -d "$asodir" ] || (cd "$mod" && go mod download github.com/Azure/azure-service-operator/v2)
  asodir=$(cd "$mod" && go list -m -f '{{.Dir}}' github.com/Azure/azure-service-operator/v2)
  # Hard links where the module cache is on the same file system (no copy of its 340 MB), a copy otherwise.
  cp -al "$asodir" "$build_mod/aso" 2>/dev/null || { rm -rf "$build_mod/aso"; cp -r "$asodir" "$build_mod/aso"; }
  gen="$build_mod/aso/internal/controllers/controller_resources_gen.go"
  chmod u+w "$build_mod/aso/internal/controllers"
  (cd "$trimmer" && go run . "$gen" "${aso_groups[@]}")
  cp "$mod/go.mod" "$mod/go.sum" "$build_mod/" && chmod u+w "$build_mod/go.mod" "$build_mod/go.sum"
  (cd "$build_mod" && go mod edit -replace "github.com/Azure/azure-service-operator/v2=./aso")
}

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
  build_module
  cpu_time cpu env -C "$build_mod" nice -n "$nice_n" go build -trimpath -gcflags "$gcflags" -ldflags "$ldf" -o "$tmp/$bin" "$pkg"
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
