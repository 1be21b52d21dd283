#!/usr/bin/env bash
# Generates the Azure Service Operator CRDs and webhook manifests that the real ASO manager needs. ASO's module zip
# does not carry them (its release ships a separate azureserviceoperator_customresourcedefinitions_<v>.yaml), so they
# are generated here with controller-gen (sigs.k8s.io/controller-tools, pinned in ../go/controller-tools/go.mod) from
# the ASO api packages of the version pinned in ../go/managers/go.mod, for the groups CAPZ uses:
#   containerservice.azure.com, resources.azure.com, network.azure.com, kubernetesconfiguration.azure.com
# Output (never in git): $CAPZ_CACHE_DIR/crds/aso-<key>/{crd/*.yaml,webhook/manifests.yaml}, where <key> hashes the
# two wrapper modules and this script; an existing output is reused. Prints the output directory on stdout.
#
# What controller-gen gives is the CRD as in ASO's "generated/bases" before kustomize: every version, the storage
# version marked by +kubebuilder:storageversion (e.g. v1api20250801storage), and no conversion stanza and no labels.
# The caller (src/controllers.ts) adds what ASO's kustomize layer adds: the app.kubernetes.io/name=azure-service-operator
# label ASO selects its CRDs by, and conversion strategy Webhook pointing at ASO's webhook server.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CAPZ_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capz-backstage}
# shellcheck source=../../../scripts/lib/cache-entry.sh
source "$here/../../scripts/lib/cache-entry.sh"
command -v go >/dev/null || { echo "gen-aso-crds: Go is required (go 1.25+ on PATH)" >&2; exit 1; }
key=$(cat "$here"/go/managers/go.mod "$here"/go/managers/go.sum "$here"/go/controller-tools/go.mod \
  "$here"/go/controller-tools/go.sum "$0" | sha256sum | cut -c1-16)
out="$cache/crds/aso-$key"
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi
# One generation per key at a time (controller-gen's build included): a second caller waits and reuses the output.
cache_entry_lock "$out" gen-aso-crds
if [ -f "$out/.complete" ]; then echo "$out"; exit 0; fi
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOMAXPROCS=${GOMAXPROCS:-2}
nice_n=${CAPZ_GO_NICE:-19}

cgkey=$(cat "$here"/go/controller-tools/go.mod "$here"/go/controller-tools/go.sum | sha256sum | cut -c1-16)
cg="$cache/bin/controller-gen-$cgkey/controller-gen"
if [ ! -x "$cg" ]; then
  ctver=$(cd "$here/go/controller-tools" && go list -m -f '{{.Version}}' sigs.k8s.io/controller-tools)
  echo "gen-aso-crds: building controller-gen $ctver" >&2
  mkdir -p "$(dirname "$cg")"
  cgtmp=$(mktemp "$cg.tmp.XXXXXX")
  # controller-gen stamps its CRDs with the module version it reads from the build info (kept by go build).
  (cd "$here/go/controller-tools" && nice -n "$nice_n" go build -trimpath -gcflags all=-dwarf=false -ldflags "-s -w" -o "$cgtmp" sigs.k8s.io/controller-tools/cmd/controller-gen)
  mv "$cgtmp" "$cg"
fi

asomod=github.com/Azure/azure-service-operator/v2
asover=$(cd "$here/go/managers" && go list -m -f '{{.Version}}' $asomod)
groups=(containerservice resources network kubernetesconfiguration)
paths=()
for g in "${groups[@]}"; do paths+=("paths=$asomod/api/$g/..."); done
echo "gen-aso-crds: generating CRDs and webhooks of ASO $asover (${groups[*]})" >&2
start=$(date +%s)
tmp=$(cache_entry_tmp "$out")
# allowDangerousTypes: ASO's specs have float64 fields (ASO's own generator passes it too, crdVersions=v1).
(cd "$here/go/managers" && nice -n "$nice_n" "$cg" crd:crdVersions=v1,allowDangerousTypes=true webhook "${paths[@]}" \
  output:crd:artifacts:config="$tmp/crd" output:webhook:artifacts:config="$tmp/webhook")
echo "$asover" > "$tmp/aso-version"
touch "$tmp/.complete"
cache_entry_publish "$tmp" "$out"
echo "gen-aso-crds: done in $(( $(date +%s) - start ))s -> $out ($(ls "$out/crd" | wc -l) CRDs)" >&2
echo "$out"
