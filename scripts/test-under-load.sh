#!/usr/bin/env bash
# Runs stages of the test command while the machine is kept busy, by default the unit and integration stages and the
# real-controllers lane, then prints each test's duration against its timeout (scripts/test-durations.mjs) and fails
# when a test came within 3x of it or failed (a test's verdict must not depend on how busy the machine is).
#
# The load is stress-ng (Debian) in a session of its own at normal priority: with the kernel's autogroup scheduling
# it takes half of the cores beside the tests, as the managers' cold build did before the test command ranked it
# below every stage. Load and stages (CAPZ_TEST_ONLY groups of scripts/test.sh; "real" is the lane):
#   scripts/test-under-load.sh [--cpu N] [--io N] [--vm-bytes SIZE] [--stages "unit integration real"]
set -euo pipefail
# shellcheck source=toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
cd "$CAPZ_ROOT"
cpu=$(nproc) io=1 vm_bytes=2G stages="unit integration real"
while [ $# -gt 0 ]; do
  case $1 in
    --cpu) cpu=$2; shift 2 ;;
    --io) io=$2; shift 2 ;;
    --vm-bytes) vm_bytes=$2; shift 2 ;;
    --stages) stages=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if ! command -v stress-ng >/dev/null; then
  capz_log "installing stress-ng from Debian"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends stress-ng >&2
fi
# Provisioned before the load starts: the load is for the tests, not for the install or the Go build.
# shellcheck source=deps.sh
source "$CAPZ_ROOT/scripts/deps.sh"
capz_install_deps
node packages/mgmt-cluster/src/cli.ts build >/dev/null
[[ " $stages " != *" real "* ]] || node packages/mgmt-cluster/src/cli.ts build-controllers >/dev/null

capz_log "load: stress-ng --cpu $cpu --io $io --vm 1 --vm-bytes $vm_bytes"
setsid stress-ng --cpu "$cpu" --io "$io" --vm 1 --vm-bytes "$vm_bytes" --quiet </dev/null >/dev/null 2>&1 &
load=$!
trap 'kill -- -"$load" 2>/dev/null || true' EXIT
rc=0
CI=true CAPZ_TEST_ONLY="$stages" ./scripts/test.sh || rc=$?
kill -- -"$load" 2>/dev/null || true
# Jest's JSON reports and the lane's node:test JSON lines (scripts/test-real-controllers.sh).
reports=()
for f in jest.json jest-integration.json real-controllers.jsonl flux.jsonl jest-real-controllers.json \
  jest-real-controllers-gitops.json; do
  [ -s ".local/reports/$f" ] && reports+=(".local/reports/$f")
done
[ ${#reports[@]} -gt 0 ] || { echo "no test report written (the stages failed before their tests ran)" >&2; exit 1; }
if [[ " $stages " == *" real "* ]] && [ ! -s .local/reports/real-controllers.jsonl ]; then
  echo "the lane wrote no node:test report (.local/reports/lane.log says why)" >&2; rc=1
fi
node scripts/test-durations.mjs --top 40 "${reports[@]}" || rc=$?
exit "$rc"
