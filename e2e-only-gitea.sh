#!/usr/bin/env bash
# Runs chosen e2e specs with test.sh's e2e set-up, Gitea included (a copy of /work/notes/e2e-only.sh for this
# worktree): e2e-only-gitea.sh e2e/tests/x.spec.ts ...
set -euo pipefail
cd /work/h1
source scripts/toolchain.sh
cluster="h1-e2e-$$"
reports=.local/reports-h1-e2e; mkdir -p "$reports"
kubeconfig=$(node packages/mgmt-cluster/src/cli.ts start --name "$cluster" --ephemeral)
export CAPZ_TEST_CLUSTER="$(dirname "$kubeconfig")/cluster.json" CAPZ_KUBECONFIG="$kubeconfig"
node packages/capz-sim/src/cli.ts run --cluster "$cluster" --scenarios all --operation-ms 100 --namespace-prefix team- > "$reports/capz-sim.log" 2>&1 &
sim=$!
root=".local/git-server/$cluster"; mkdir -p "$root"
node packages/git-server/src/cli.ts --root "$root" --repo gitops --url-file "$root/url" --exit-with $$ > "$reports/git.log" 2>&1 &
groot="$PWD/.local/gitea/$cluster"; rm -rf "$groot"; mkdir -p "$groot"
node packages/git-server/src/gitea-cli.ts start --root "$groot" --repo gitops \
  --port "$(node packages/mgmt-cluster/src/cli.ts port)" --info-file "$groot/info.json" --exit-with $$ > "$reports/gitea.log" 2>&1 &
trap 'kill $sim 2>/dev/null; node packages/mgmt-cluster/src/cli.ts stop --name "$cluster" || true' EXIT
export CAPZ_AZURE_DISCOVERY_CONFIG="$PWD/.local/capz-sim/$cluster/app-config.azure-discovery.yaml"
for _ in $(seq 1 240); do [ -s "$CAPZ_AZURE_DISCOVERY_CONFIG" ] && [ -s "$root/url" ] && [ -s "$groot/info.json" ] && break; sleep 0.5; done
[ -s "$groot/info.json" ] || { cat "$reports/gitea.log" >&2; exit 1; }
CAPZ_GITOPS_REPO_URL=$(cat "$root/url"); export CAPZ_GITOPS_REPO_URL
export CAPZ_GITEA_INFO="$groot/info.json"
[ "${SKIP_BUILD:-}" = 1 ] || yarn workspace app build > "$reports/app-build.log" 2>&1
yarn test:e2e "$@"
