#!/usr/bin/env bash
# Starts Backstage with the CAPZ plugins on the embedded default: two real local management clusters ("demo" and
# "demo-2": etcd, kube-apiserver and kube-controller-manager built from Go modules, with the CAPI/CAPZ/ASO CRDs),
# the simulated Azure/ASO/CAPZ/CAPI world on each with the demo scenarios, and SQLite.
# Frontend: http://localhost:3000 (AKS clusters page: /capz). Backend: http://localhost:7007.
#
#   ./scripts/start.sh                                   the local management clusters (kept running on exit)
#   ./scripts/start.sh --kubeconfig ~/.kube/config [--context my-mgmt]   an existing management cluster instead
#   ./scripts/start.sh --real-controllers                one local management cluster ("demo-real") running the real
#       CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, only Azure simulated: cluster team-real/real-aso made from
#       CAPZ's aks-aso template, and real-orphan (Azure only) to adopt. The first run builds the managers (~15-47 min).
#   ./scripts/start.sh --gitops                          as the first, plus a local Gitea and a real Flux (source- and
#       kustomize-controller v1.9.6, built from Go modules: ~10 min the first time, cached after) on "demo" applying
#       Gitea's `gitops` repository: the template's pull requests, once merged in Gitea, become clusters; day 2 on them
#       opens pull requests. Flux's state: yarn mgmt flux status
#
# Stop the local management clusters with: yarn mgmt stop --name demo; yarn mgmt stop --name demo-2
# (their etcd data stays in .local/mgmt-clusters/, the simulated Azure in .local/capz-sim/).
set -euo pipefail
kubeconfig="" context="" real="" gitops=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kubeconfig) kubeconfig=$2; shift 2 ;;
    --context) context=$2; shift 2 ;;
    --real-controllers) real=1; shift ;;
    --gitops) gitops=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "start.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
# shellcheck source=toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
# shellcheck source=deps.sh
source "$CAPZ_ROOT/scripts/deps.sh"
cd "$CAPZ_ROOT"
if [ -n "$gitops" ] && { [ -n "$kubeconfig" ] || [ -n "$real" ]; }; then
  echo "start.sh: --gitops runs on the local management clusters (not with --kubeconfig or --real-controllers)" >&2; exit 2
fi
capz_install_deps

mkdir -p .local/sqlite .local/logs
config_args=()
if [ -n "$real" ]; then
  [ -z "$kubeconfig" ] || { echo "start.sh: --real-controllers starts its own management cluster (no --kubeconfig)" >&2; exit 2; }
  capz_log "building the real CAPI/CAPZ/ASO managers (cached; the first build takes ~15-47 min)"
  node packages/mgmt-cluster/src/cli.ts build-controllers >&2
  kubeconfig=$(node packages/mgmt-cluster/src/cli.ts start --name demo-real)
  discovery=".local/capz-sim/demo-real/app-config.azure-discovery.yaml"
  rm -f "$discovery"
  # Only Azure simulated; the simulator starts (and on exit stops) the real managers on demo-real.
  node packages/capz-sim/src/cli.ts run --cluster demo-real --real-controllers --scenarios real-demo --operation-ms 1500 \
    > .local/logs/capz-sim-demo-real.log 2>&1 &
  sim=$!
  trap 'kill "$sim" 2>/dev/null || true' EXIT
  for _ in $(seq 1 480); do
    [ -s "$discovery" ] && break
    kill -0 "$sim" 2>/dev/null || { echo "start.sh: the simulator stopped:" >&2; tail -30 .local/logs/capz-sim-demo-real.log >&2; exit 1; }
    sleep 0.5
  done
  [ -s "$discovery" ] || { echo "start.sh: no $discovery after 240 s" >&2; exit 1; }
  cat > .local/app-config.demo.yaml <<YAML
# Written by scripts/start.sh --real-controllers: the local management cluster with the real managers.
capz:
  managementClusters:
    - name: local
      title: Local management cluster (real CAPI, CAPZ, ASO)
      kubeconfig:
        path: $kubeconfig
YAML
  config_args=(--config "$CAPZ_ROOT/app-config.yaml" --config "$CAPZ_ROOT/.local/app-config.demo.yaml" --config "$CAPZ_ROOT/$discovery")
  capz_log "real managers' logs in .local/mgmt-clusters/demo-real/controllers/logs; simulated Azure in .local/logs/capz-sim-demo-real.log"
elif [ -z "$kubeconfig" ]; then
  capz_log "starting the local management clusters (first run builds Kubernetes from Go modules: ~6 min)"
  kubeconfig=$(node packages/mgmt-cluster/src/cli.ts start --name demo)
  kubeconfig2=$(node packages/mgmt-cluster/src/cli.ts start --name demo-2)
  # The simulated world on each, in the background; it ends with this script (the clusters keep running).
  # Each also serves a simulated ARM endpoint and Entra ID, and writes the backend's AKS discovery config for them
  # (capz.azureDiscovery; for demo-2 the override of management cluster local-2): passed with --config below.
  sims=() discovery_configs=()
  for pair in "demo:all" "demo-2:second-management-cluster"; do
    name=${pair%%:*}
    discovery=".local/capz-sim/$name/app-config.azure-discovery.yaml"
    rm -f "$discovery" # a stale one names the ports of an earlier run
    discovery_configs+=("$discovery")
    node packages/capz-sim/src/cli.ts run --cluster "$name" --scenarios "${pair#*:}" --subscription "$( [ "$name" = demo ] && echo 5f1c2a9e-7d41-4b1a-9a3e-2c6d8e0f1a2b || echo 9b7e4c21-3a5d-4f60-8e1b-7c2d9a0b4e6f )" \
      $( [ "$name" = demo ] || echo --backend-name local-2 ) > ".local/logs/capz-sim-$name.log" 2>&1 &
    sims+=($!)
  done
  trap 'kill "${sims[@]}" 2>/dev/null || true' EXIT
  for i in 0 1; do # the simulators write their discovery config within seconds of starting
    for _ in $(seq 1 120); do
      [ -s "${discovery_configs[$i]}" ] && break
      kill -0 "${sims[$i]}" 2>/dev/null || { echo "start.sh: the simulator stopped:" >&2; tail -20 ".local/logs/capz-sim-$( [ "$i" = 0 ] && echo demo || echo demo-2 ).log" >&2; exit 1; }
      sleep 0.5
    done
    [ -s "${discovery_configs[$i]}" ] || { echo "start.sh: no ${discovery_configs[$i]} after 60 s" >&2; exit 1; }
  done
  cat > .local/app-config.demo.yaml <<YAML
# Written by scripts/start.sh: the two local management clusters.
capz:
  managementClusters:
    - name: local
      title: Local management cluster
      kubeconfig:
        path: $kubeconfig
    - name: local-2
      title: Second management cluster
      kubeconfig:
        path: $kubeconfig2
YAML
  config_args=(--config "$CAPZ_ROOT/app-config.yaml" --config "$CAPZ_ROOT/.local/app-config.demo.yaml")
  for f in "${discovery_configs[@]}"; do config_args+=(--config "$CAPZ_ROOT/$f"); done
  capz_log "simulators logging to .local/logs/capz-sim-*.log"
else
  [ -r "$kubeconfig" ] || { echo "start.sh: cannot read kubeconfig $kubeconfig" >&2; exit 2; }
  kubeconfig=$(cd "$(dirname "$kubeconfig")" && pwd)/$(basename "$kubeconfig")
fi
export CAPZ_KUBECONFIG=$kubeconfig
if [ -n "$context" ]; then export CAPZ_KUBECONFIG_CONTEXT=$context; fi
capz_log "management cluster kubeconfig: $CAPZ_KUBECONFIG${context:+ (context $context)}"
# The demo's GitOps repository for the template's git delivery (capz:cluster:propose), served over smart HTTP by
# packages/git-server (git-http-backend) until this script ends; its branches stay in .local/git-server/demo.
if [ -z "${CAPZ_GITOPS_REPO_URL:-}" ] && [ -x /usr/lib/git-core/git-http-backend ]; then
  rm -f .local/git-server/demo/url && mkdir -p .local/git-server/demo
  node packages/git-server/src/cli.ts --root .local/git-server/demo --repo gitops --url-file .local/git-server/demo/url \
    --exit-with $$ > .local/logs/git-server.log 2>&1 &
  for _ in $(seq 1 60); do [ -s .local/git-server/demo/url ] && break; sleep 0.5; done
  if [ -s .local/git-server/demo/url ]; then
    CAPZ_GITOPS_REPO_URL=$(cat .local/git-server/demo/url); export CAPZ_GITOPS_REPO_URL
    capz_log "GitOps repository (git delivery): $CAPZ_GITOPS_REPO_URL"
  else
    capz_log "no local Git server (see .local/logs/git-server.log): the template's git delivery needs a repository URL"
  fi
fi
if [ -n "$gitops" ]; then
  # Gitea keeps its repositories in .local/gitea/demo across restarts (and its port, while free): Flux must never
  # find the repository it applied gone, or it would prune every cluster it made.
  capz_log "GitOps: building Flux's controllers and Gitea (cached; the first build takes ~10 min on an idle machine)"
  node packages/mgmt-cluster/src/cli.ts build-flux >/dev/null
  node packages/git-server/src/gitea-cli.ts build >/dev/null
  groot=.local/gitea/demo
  mkdir -p "$groot" && rm -f "$groot/info.json"
  [ -s "$groot/port" ] || node packages/mgmt-cluster/src/cli.ts port > "$groot/port"
  node packages/git-server/src/gitea-cli.ts start --root "$groot" --repo gitops --port "$(cat "$groot/port")" \
    --info-file "$groot/info.json" --exit-with $$ > .local/logs/gitea.log 2>&1 &
  for _ in $(seq 1 240); do [ -s "$groot/info.json" ] && break; sleep 0.5; done
  [ -s "$groot/info.json" ] || { echo "start.sh: Gitea did not start (.local/logs/gitea.log; a port taken? remove $groot/port):" >&2; tail -20 .local/logs/gitea.log >&2; exit 1; }
  gitea_url=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).url)' "$groot/info.json")
  gitea_repo=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).repos.gitops)' "$groot/info.json")
  node packages/mgmt-cluster/src/cli.ts flux start --name demo > .local/logs/flux-start.log 2>&1 ||
    { echo "start.sh: Flux did not start:" >&2; tail -20 .local/logs/flux-start.log >&2; exit 1; }
  node packages/mgmt-cluster/src/cli.ts flux follow --name demo --url "$gitea_repo" --credentials "$groot/credentials.json"
  config_args+=(--config "$CAPZ_ROOT/$groot/app-config.gitea.yaml")
  capz_log "Gitea: $gitea_url (user capz, password in $groot/credentials.json); Flux applies $gitea_repo to local every minute (yarn mgmt flux status)"
fi
capz_log "starting Backstage: http://localhost:3000/capz (backend http://localhost:7007)"
yarn start "${config_args[@]}"
