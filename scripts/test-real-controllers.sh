#!/usr/bin/env bash
# The real-controllers lane: the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, built from their
# Go modules (cached by a hash of the pins; cold ~15 min on an idle 2-core machine, up to ~47 min on a busy one), on
# management clusters of the lane's own, with only Azure simulated (Entra ID and ARM under their real names behind an
# HTTPS proxy, a workload API server with the clusters' Nodes), and a real Flux (source- and kustomize-controller
# v1.9.6 from their Go modules) reading a real Gitea. Runs:
#   packages/mgmt-cluster/test-real/*.test.ts   (node:test) managers, webhooks, conversion, the proxy, CAPZ's templates
#   packages/mgmt-cluster/test-flux/*.test.ts   (node:test) Flux's apply, revert and fetch (docs/flux-facts.md#flux-run)
#   plugins/capz-backend/**/*.real-controllers.test.ts (Jest) the jobs, day 2 and day 2 through Git of a real backend
# Every part runs, also when one fails. Flux and Gitea build in the background beside the first part (~13 CPU-minutes
# cold, nice'd by their scripts; seconds cached) and are waited for before the second. Reports go to $1 (default
# .local/reports): real-controllers.log and flux.log (node:test, spec), real-controllers.jsonl and flux.jsonl (node:test,
# one line per test and hook for scripts/test-durations.mjs), jest-real-controllers.json.
#
# No process outlives the node:test files: their management clusters and managers live under a state directory of
# this run (CAPZ_STATE_DIR), and whatever still runs from it when they end, however they end (a test that failed or
# timed out, a hook that hung, this script stopped), is listed, stopped by process group and fails the lane.
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

state="$CAPZ_ROOT/.local/real-controllers/run-$$"
rm -rf "$state" && mkdir -p "$state"
# Every process whose command line names this run's state directory (etcd, kube-apiserver and kube-controller-manager
# name their data and certificates, the managers their --webhook-cert-dir); each leads a process group of its own.
left_behind() { pgrep -f -- "$state/" || true; }
sweep() { # sweep: stops what the node:test files left running; returns 1 when there was something
  local pids; pids=$(left_behind)
  [ -n "$pids" ] || { rm -rf "$state"; return 0; }
  echo "processes left behind by the node:test files (stopped now):" >&2
  ps -o pid=,pgid=,args= -p "$(echo "$pids" | paste -sd,)" | cut -c1-240 >&2 || true
  local own pid pgid; own=$(ps -o pgid= -p $$ | tr -d ' ')
  for sig in TERM KILL; do
    for pid in $(left_behind); do
      pgid=$(ps -o pgid= -p "$pid" | tr -d ' ') || continue
      if [ -n "$pgid" ] && [ "$pgid" != "$own" ]; then kill -"$sig" -- -"$pgid" 2>/dev/null || true
      else kill -"$sig" "$pid" 2>/dev/null || true; fi
    done
    for _ in $(seq 1 50); do [ -z "$(left_behind)" ] && break; sleep 0.2; done
  done
  rm -rf "$state"
  return 1
}
trap 'sweep || true' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

rc=0
# spec on stdout (the log the summary reads), and the JSON lines for the durations.
CAPZ_STATE_DIR="$state" bash -c "set -o pipefail; node --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./scripts/node-test-json-reporter.mjs --test-reporter-destination='$reports/real-controllers.jsonl' \
  packages/mgmt-cluster/test-real/*.test.ts | tee '$reports/real-controllers.log'" || rc=$?
sweep || { echo "the node:test files left processes running: a failed or timed-out test must stop what it started" >&2; rc=1; }
wait "$flux_build" || true
gitops=()
if [ "$(cat "$reports/build-flux.rc" 2>/dev/null)" != 0 ]; then
  echo "Flux or Gitea did not build (build-flux.log); their tests are not run:" >&2; tail -40 "$reports/build-flux.log" >&2
  rc=1; gitops=(--testPathIgnorePatterns 'gitops\.real-controllers')
else
mkdir -p "$state"
CAPZ_STATE_DIR="$state" bash -c "set -o pipefail; node --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./scripts/node-test-json-reporter.mjs --test-reporter-destination='$reports/flux.jsonl' \
  packages/mgmt-cluster/test-flux/*.test.ts | tee '$reports/flux.log'" || rc=$?
sweep || { echo "the Flux test left processes running" >&2; rc=1; }
fi
# One suite at a time: each starts two API servers, the three managers and a backend; two at once beside the test
# command's other stages slowed a simulator's start past 240 s on a loaded CI machine; serial costs ~160 s of wall time.
CI=true yarn test --testPathPatterns '\.real-controllers\.test\.' --runInBand "${gitops[@]}" --json --outputFile="$reports/jest-real-controllers.json" || rc=$?
exit "$rc"
