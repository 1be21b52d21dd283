#!/usr/bin/env bash
# Builds Flux's source-controller and kustomize-controller from their Go modules (the versions pinned below, one Flux
# release: both declare `go 1.26.0`; v1.10 needs Go 1.27) into $CAPZ_CACHE_DIR/bin/flux-<key>/, where <key> hashes
# this script (so the pins). An entry that already exists is reused, so re-runs and fresh clones on the same machine
# skip the build. Facts and flags: docs/flux-facts.md#build.
#
#   build-flux.sh          # prints the entry's folder on stdout; progress (with each build's wall time) goes to stderr
#   build-flux.sh --crds   # only the CRDs (seconds: the two module zips, no build): prints a folder with crds/
#
# The entry: source-controller, kustomize-controller (binaries) and crds/ (every CRD of both modules'
# config/crd/bases, as the module zips carry them). Both go.mod files have `replace` directives, which a wrapper
# module (as ../go/* use for the other managers) would ignore and `go install pkg@version` refuses, so each module's
# own source is built, as packages/git-server/scripts/build-gitea.sh builds Gitea: `go mod download` puts it in
# GOMODCACHE and a writable copy is built with its own go.mod/go.sum. Two things the copy needs that the zip lacks:
#  - `replace github.com/fluxcd/<controller>/api => ./api`: the api folder is a module of its own, so it is not in
#    the parent's zip; its zip (the version the parent requires) is put there.
#  - source-controller requires github.com/fluxcd/pkg/artifact v0.18.3, which this machine's module proxy does not
#    serve (v0.18.0 is the newest v0.18 it serves); v0.18.0 is put in its place with one more `replace`. The two differ
#    only in go.mod requirements that source-controller requires at the same or newer versions (so the build list is
#    unchanged), and artifact/ has no source change from v0.18.0 to v0.18.2 in fluxcd/pkg's history.
# Go builds run under `nice -n 19` with GOMAXPROCS=2 unless the caller sets CAPZ_GO_NICE / GOMAXPROCS: the machine is
# shared. Not part of the test suite's build stage (yet).
set -euo pipefail
flux_version=v1.9.6 # source-controller and kustomize-controller of one Flux release
artifact_pin=v0.18.0
cache=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
# shellcheck source=../../../scripts/lib/cache-entry.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/cache-entry.sh"
command -v go >/dev/null || { echo "build-flux: Go is required (go 1.26+ on PATH)" >&2; exit 1; }
# Both go.mod files say `go 1.26.0`; an older Go with GOTOOLCHAIN=local stops with a less clear message.
gover=$(go env GOVERSION)
case "$gover" in
  go1.2[6-9]* | go1.[3-9][0-9]* | go[2-9]*) ;;
  *) echo "build-flux: Flux $flux_version needs Go 1.26+ (found $gover)" >&2; exit 1 ;;
esac
# source-controller is built with its GitRepository reconciler only (docs/flux-facts.md#trimmed-source-controller).
trim_patch="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/go/flux-trim/source-controller-main.patch"
# kustomize-controller is built without SOPS: its decryptor package replaced by this one (docs/flux-facts.md#trimmed-kustomize-controller).
decryptor_stub="$(dirname "$trim_patch")/kustomize-controller-decryptor.go"
key=$(cat "$0" "$trim_patch" "$decryptor_stub" | sha256sum | cut -c1-16)
out="$cache/bin/flux-$key"
complete() { [ -x "$out/source-controller" ] && [ -x "$out/kustomize-controller" ] && [ -d "$out/crds" ]; }
if complete; then echo "build-flux: cached" >&2; echo "$out"; exit 0; fi
if [ "${1:-}" = --crds ]; then
  # A test that needs Flux's kinds but no controller must not wait for the build (an hour on a busy 2-core machine,
  # docs/flux-facts.md#flux-run): the CRDs are files of the two main modules' zips.
  out="$cache/bin/flux-crds-$key"
  if [ -d "$out/crds" ]; then echo "build-flux: CRDs cached" >&2; echo "$out"; exit 0; fi
  cache_entry_lock "$out" build-flux
  if [ -d "$out/crds" ]; then echo "build-flux: CRDs fetched by the other caller" >&2; echo "$out"; exit 0; fi
  tmp=$(cache_entry_tmp "$out")
  mkdir -p "$tmp/crds"
  for name in source-controller kustomize-controller; do
    json=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "github.com/fluxcd/$name@$flux_version") || true
    dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
    [ -n "$dir" ] && [ -d "$dir/config/crd/bases" ] ||
      { echo "build-flux: go mod download github.com/fluxcd/$name@$flux_version gave no config/crd/bases: $json" >&2; exit 1; }
    cp "$dir"/config/crd/bases/*.yaml "$tmp/crds/"
  done
  chmod -R u+w "$tmp/crds"
  cd "$cache"
  cache_entry_publish "$tmp" "$out"
  echo "build-flux: the CRDs of $flux_version in $out/crds" >&2
  echo "$out"
  exit 0
fi
# -buildvcs=false: the copy is not a repository, but a cache folder inside one would stamp (or fail on) that one.
export CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false" GOMAXPROCS=${GOMAXPROCS:-2}
# No DWARF from the compiler either: the linker drops it anyway (-ldflags -s -w); see build-controllers.sh.
gcflags=all=-dwarf=false
nice_n=${CAPZ_GO_NICE:-19}

module_dir() { # <module@version>: the module's folder in GOMODCACHE (downloaded if missing)
  local json dir
  json=$(cd "$tmp" && go mod download -json "$1") || true
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
  if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
    echo "build-flux: go mod download $1 gave no module directory: $(sed -n 's/^[[:space:]]*"Error": //p' <<<"$json")" >&2
    return 1
  fi
  echo "$dir"
}

source_of() { # <name> <folder>: a writable copy of github.com/fluxcd/<name>@$flux_version to build, in <folder>
  local name=$1 module=github.com/fluxcd/$1 src=$2 dir apiver
  dir=$(module_dir "$module@$flux_version")
  mkdir -p "$(dirname "$src")"
  cp -r "$dir" "$src" && chmod -R u+w "$src"
  # The api module the parent requires (its go.mod's require line), where its `replace … => ./api` looks for it.
  apiver=$(awk -v m="$module/api" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$src/go.mod")
  [ -n "$apiver" ] || { echo "build-flux: $module's go.mod requires no $module/api" >&2; exit 1; }
  grep -q "^replace $module/api => ./api\$" "$src/go.mod" ||
    { echo "build-flux: $module's go.mod no longer replaces $module/api with ./api; read its go.mod" >&2; exit 1; }
  dir=$(module_dir "$module/api@$apiver")
  cp -r "$dir" "$src/api" && chmod -R u+w "$src/api"
  if [ "$name" = source-controller ]; then
    (cd "$src" && go mod edit -replace "github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@$artifact_pin")
    trim_source_controller "$src"
  fi
  if [ "$name" = kustomize-controller ]; then trim_kustomize_controller "$src"; fi
}

# Only the GitRepository reconciler, the one kind of source the product and its tests use: its file, artifact.go and
# source_predicate.go are the package's others, and main.go loses the Helm, Bucket and OCI reconcilers, the Helm
# getters and the cosign verifier (the patch). Helm, OCI, cosign and the bucket SDKs are then never compiled: 484
# instead of 680 CPU-seconds from an empty GOCACHE, 62 instead of 101 MB (docs/flux-facts.md#trimmed-source-controller).
# A file gone or a patch that no longer applies (another version) fails the build here, not later.
trim_source_controller() { # <folder>: a copy of source-controller's module, trimmed in place
  local src=$1
  rm "$src"/internal/controller/{bucket,helmchart,helmrepository,ocirepository}_controller.go
  # GIT_CEILING_DIRECTORIES: in a copy inside a repository (a cache folder in a checkout), git would take the copy for
  # a subdirectory of that repository and skip the patch's paths as outside it, applying nothing.
  (cd "$src" && GIT_CEILING_DIRECTORIES="$(dirname "$src")" git apply "$trim_patch") ||
    { echo "build-flux: $trim_patch does not apply to source-controller $flux_version's main.go" >&2; exit 1; }
  ! grep -q 'HelmChartReconciler' "$src/main.go" ||
    { echo "build-flux: source-controller's main.go still sets up the Helm reconcilers after the patch" >&2; exit 1; }
}

# Without SOPS: internal/decryptor's decryptor.go (SOPS, age, PGP and the AWS, Azure, GCP and Vault key services, with
# gRPC and Envoy's xDS under them) is replaced by a stub of the same API that refuses spec.decryption, which nothing
# here uses; its test file goes too. 1,884 -> 1,461 packages. A file gone (another version) fails here; an API the
# controller calls and the stub lacks fails the compile.
trim_kustomize_controller() { # <folder>: a copy of kustomize-controller's module, trimmed in place
  local dir=$1/internal/decryptor
  [ -f "$dir/decryptor.go" ] && [ -f "$dir/options.go" ] ||
    { echo "build-flux: kustomize-controller $flux_version has no internal/decryptor/{decryptor,options}.go to trim" >&2; exit 1; }
  cp "$decryptor_stub" "$dir/decryptor.go"
  rm -f "$dir/decryptor_test.go"
}

if [ "${1:-}" = --modules ]; then
  # Only the Go modules the build needs, fetched (scripts/fetch-go-modules.sh): `go list -deps` of each main package
  # in a copy as the build makes it loads, so fetches, the modules of exactly the packages it compiles. No lock: the
  # go command locks each module version while it fetches it.
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for name in source-controller kustomize-controller; do
    source_of "$name" "$tmp/src/$name"
    (cd "$tmp/src/$name" && go list -deps . >/dev/null)
  done
  exit 0
fi

# One build at a time per key: a second caller waits for the first and reuses its entry.
cache_entry_lock "$out" build-flux
if complete; then echo "build-flux: built by the other caller" >&2; echo "$out"; exit 0; fi
tmp=$(cache_entry_tmp "$out")
mkdir -p "$tmp/crds"

build_one() { # <name>: github.com/fluxcd/<name>@$flux_version into $tmp/<name>
  local name=$1 src="$tmp/src/$1" start
  start=$(date +%s)
  echo "build-flux: downloading github.com/fluxcd/$name $flux_version" >&2
  source_of "$name" "$src"
  cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
  # Only the main package's modules: `go mod download` of the whole graph also wants test-only modules that the
  # proxy does not serve (source-controller's github.com/fluxcd/pkg/helmtestserver).
  echo "build-flux: building $name (cold: minutes on 2 cores)" >&2
  local cpu
  cpu_time cpu env -C "$src" nice -n "$nice_n" go build -trimpath -gcflags "$gcflags" -ldflags "-s -w" -o "$tmp/$name" .
  echo "build-flux: $name done in $(( $(date +%s) - start ))s, $cpu ($(du -h "$tmp/$name" | cut -f1))" >&2
}

build_one source-controller
build_one kustomize-controller
# The sources are not needed at run time (unlike Gitea's templates): only the binaries and CRDs are published.
rm -rf "$tmp/src"
cd "$cache"
cache_entry_publish "$tmp" "$out"
echo "$out"
