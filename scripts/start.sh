#!/usr/bin/env bash
# Starts Backstage with the CAPZ plugins on the embedded default: a real local management cluster (etcd,
# kube-apiserver and kube-controller-manager built from Go modules, with the CAPI/CAPZ/ASO CRDs) and SQLite.
# Frontend: http://localhost:3000 (AKS clusters page: /capz). Backend: http://localhost:7007.
#
#   ./scripts/start.sh                                   local management cluster "demo" (kept running on exit)
#   ./scripts/start.sh --kubeconfig ~/.kube/config [--context my-mgmt]   an existing management cluster instead
#
# Stop the local management cluster with: yarn mgmt stop   (its etcd data stays in .local/mgmt-clusters/demo)
set -euo pipefail
kubeconfig="" context=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kubeconfig) kubeconfig=$2; shift 2 ;;
    --context) context=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "start.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
# shellcheck source=toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
# shellcheck source=deps.sh
source "$CAPZ_ROOT/scripts/deps.sh"
cd "$CAPZ_ROOT"
capz_install_deps

if [ -z "$kubeconfig" ]; then
  capz_log "starting the local management cluster (first run builds Kubernetes from Go modules: ~6 min)"
  kubeconfig=$(node packages/mgmt-cluster/src/cli.ts start --name demo)
else
  [ -r "$kubeconfig" ] || { echo "start.sh: cannot read kubeconfig $kubeconfig" >&2; exit 2; }
  kubeconfig=$(cd "$(dirname "$kubeconfig")" && pwd)/$(basename "$kubeconfig")
fi
export CAPZ_KUBECONFIG=$kubeconfig
if [ -n "$context" ]; then export CAPZ_KUBECONFIG_CONTEXT=$context; fi
mkdir -p .local/sqlite
capz_log "management cluster kubeconfig: $CAPZ_KUBECONFIG${context:+ (context $context)}"
capz_log "starting Backstage: http://localhost:3000/capz (backend http://localhost:7007)"
exec yarn start
