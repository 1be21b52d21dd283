#!/usr/bin/env bash
# The real-controllers lane: the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, built from their
# Go modules (cached by a hash of the pins; cold ~15 min on an idle 2-core machine, up to ~47 min on a busy one), on
# management clusters of the lane's own, with only Azure simulated (Entra ID and ARM under their real names behind an
# HTTPS proxy, a workload API server with the clusters' Nodes), and a real Flux (source- and kustomize-controller
# v1.9.6 from their Go modules) reading a real Gitea. Its parts, one after the other, each with its own management
# clusters:
#   packages/mgmt-cluster/test-real/*.test.ts   (node:test) managers, webhooks, conversion, the proxy, CAPZ's templates
#   plugins/capz-backend/**/{day2,jobs}.real-controllers.test.ts (Jest) the jobs and day 2 of a real backend
#   once Flux and Gitea are built (in the background beside the parts above; ~13 CPU-minutes cold, seconds cached):
#   packages/mgmt-cluster/test-flux/*.test.ts   (node:test) Flux's apply, revert and fetch (docs/flux-facts.md#flux-run)
#   plugins/capz-backend/**/gitops.real-controllers.test.ts (Jest) day 2 and the jobs through Git
# Every part runs to its end, also when another fails. Reports go to $1 (default .local/reports), one set per part:
# real-controllers.log and flux.log (node:test, spec), real-controllers.jsonl and flux.jsonl (node:test, one line per
# test and hook for scripts/test-durations.mjs), jest-real-controllers.json and jest-real-controllers-gitops.json.
#
# No process outlives a part: the management clusters, managers and Flux of its node:test files or Jest suites live
# under a state directory of the part (CAPZ_STATE_DIR), and whatever still runs from it when they end, however they end
# (a test that failed or timed out, a hook that hung, this script stopped), is listed, stopped by process group and
# fails the lane.
set -euo pipefail
# shellcheck source=toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
cd "$CAPZ_ROOT"
reports=${1:-"$CAPZ_ROOT/.local/reports"}
mkdir -p "$reports"
[ -x "$(command -v yarn)" ] || { echo "yarn not on PATH: run ./scripts/test.sh once (it installs the toolchain)" >&2; exit 1; }
node packages/mgmt-cluster/src/cli.ts build >/dev/null
node packages/mgmt-cluster/src/cli.ts build-controllers >/dev/null
# shellcheck disable=SC2016 # expanded by the inner shell
bash -c 'node packages/mgmt-cluster/src/cli.ts build-flux && node packages/git-server/src/gitea-cli.ts build
  echo $? > "$1/build-flux.rc"' _ "$reports" > "$reports/build-flux.log" 2>&1 </dev/null &
flux_build=$!

# Each part of the lane has a state directory of its own under this run's, so that one part's sweep never stops another's.
state_root="$CAPZ_ROOT/.local/real-controllers/run-$$"
rm -rf "$state_root" && mkdir -p "$state_root"
# shellcheck source=lib/sweep.sh
source "$CAPZ_ROOT/scripts/lib/sweep.sh"
trap 'sweep_state "$state_root" || true' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

node_tests() { # node_tests NAME DIR CONCURRENCY: a folder's node:test files; spec to NAME.log, JSON lines to NAME.jsonl
  local name=$1 dir=$2 concurrency=$3
  run_swept "$state_root/$name" "$name: the node:test files" "$reports/$name.log" \
    node --test --test-concurrency="$concurrency" \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=./scripts/node-test-json-reporter.mjs --test-reporter-destination="$reports/$name.jsonl" \
    "$dir"/*.test.ts
}
jest_tests() { # jest_tests NAME JEST-ARGS...: the backend's real-controllers suites; JSON to NAME.json, output to NAME.log
  # Their management clusters, managers, Flux and simulated Azure under the part's state directory too: a Jest
  # stopped with the lane (the test command ended at a failed stage) runs no afterAll, and what it started detached
  # would outlive it.
  local name=$1; shift
  run_swept "$state_root/$name" "$name: the Jest suites" "$reports/$name.log" \
    env CI=true yarn test --json --outputFile="$reports/$name.json" "$@"
}
# One part at a time. The parts at once (two node:test files, two Jest suites, the Flux test and the GitOps suite:
# six management clusters) passed alone in 836 s instead of ~1,700 s, but beside the test command's other stages
# (load average ~19 on 2 cores) backends did not serve within 180 s and a manager's TLS connection was reset: the
# verdict depended on the load, so the parts stay in series until the lane's setup costs less CPU.
parts=()
part() { # part NAME COMMAND...: runs a part; its exit code goes to $reports/part-NAME.rc
  local name=$1; shift
  rm -f "$reports/part-$name.rc"
  local s rc=0; s=$(date +%s); echo "lane: $name started"
  "$@" || rc=$?
  echo "$rc" > "$reports/part-$name.rc"; echo "lane: $name ended in $(( $(date +%s) - s ))s (exit $rc)"
  parts+=("$name")
}
part real-controllers node_tests real-controllers packages/mgmt-cluster/test-real 1
part jest-real-controllers jest_tests jest-real-controllers --testPathPatterns '(day2|jobs)\.real-controllers\.test\.' --runInBand
wait "$flux_build" || true
rc=0
if [ "$(cat "$reports/build-flux.rc" 2>/dev/null)" != 0 ]; then
  echo "Flux or Gitea did not build (build-flux.log); their tests are not run:" >&2; tail -40 "$reports/build-flux.log" >&2
  rc=1
else
  part flux node_tests flux packages/mgmt-cluster/test-flux 1
  part jest-real-controllers-gitops jest_tests jest-real-controllers-gitops --testPathPatterns 'gitops\.real-controllers\.test\.' --runInBand
fi
# Every part runs to its end, also when another fails; a failed part's output closes this log.
for p in "${parts[@]}"; do
  [ "$(cat "$reports/part-$p.rc" 2>/dev/null)" = 0 ] && continue
  rc=1; echo "── lane part $p failed; the end of $reports/$p.log:"; tail -60 "$reports/$p.log"
done
exit "$rc"
