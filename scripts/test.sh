#!/usr/bin/env bash
# Runs the whole test suite, provisioning what it needs (Node 24, Yarn, dependencies, Kubernetes binaries built
# from Go modules, Chromium from Debian):
#   1. type-check (tsc), lint, format (prettier --check), citations, release metadata and API reports
#   2. unit tests (Jest, msw for the frontend)
#   3. integration tests against a real management cluster started once for the run (node:test, Jest)
#   4. end-to-end tests in Chromium against the running app and the same cluster, with Gitea and a real Flux (Playwright)
#   5. the install guide (docs/install.md) followed on a fresh Backstage app, checked in Chromium
#   6. the real-controllers lane: the real CAPI, CAPZ and ASO managers with only Azure simulated, and a real Flux
#      (source- and kustomize-controller, built in the lane's background) applying a real Gitea's repository
#      (scripts/test-real-controllers.sh). The managers build in the background from the start of the run, and the
#      lane runs in the background as soon as they are built, beside stages 3-5 (its own management clusters, free
#      ports): most of its time is waiting for the managers' reconciles, which the other stages fill with work.
# Exits non-zero on the first failing stage; the last line sums the tests: "N passed, N failed".
# CAPZ_TEST_ONLY="unit integration" runs only those groups of stages (checks, unit, integration, e2e, install, real):
# scripts/test-under-load.sh uses it.
set -euo pipefail
# shellcheck source=toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
# shellcheck source=deps.sh
source "$CAPZ_ROOT/scripts/deps.sh"
# shellcheck source=lib/sweep.sh
source "$CAPZ_ROOT/scripts/lib/sweep.sh"
cd "$CAPZ_ROOT"
# V8's compiled code of every Node process's modules, kept on disk across processes (Node's module compile cache):
# the run starts Node many times (yarn, the CLIs, test runners, backends); a small CLI's start costs half the
# CPU with it (0.65 -> 0.34 CPU-seconds). The test backends' default folder (backendProcess.ts), shared safely.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-${TMPDIR:-/tmp}/capz-backstage-node-compile-cache}"
reports="$CAPZ_ROOT/.local/reports"
# The e2e stage writes its results beside its tests: a previous run's must not count in this run's summary.
rm -rf "$reports" "$CAPZ_ROOT/e2e/artifacts/results.json" && mkdir -p "$reports"
t0=$(date +%s)

want() { [ -z "${CAPZ_TEST_ONLY:-}" ] || [[ " $CAPZ_TEST_ONLY " == *" $1 "* ]]; }
# The machine's busy CPU time in clock ticks (/proc/stat: user, nice, system, irq, softirq, steal; man 5 proc), read
# at each stage's start and end: how busy the cores were (this run's background builds and lane included, and
# anything else on the machine) tells a stage that waits from a stage that computes, and the run's total in
# CPU-seconds is the floor under its wall time on this many cores.
ticks=$(getconf CLK_TCK) cores=$(nproc)
cpu_busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }
cpu0=$(cpu_busy)
busy_pct() { # busy_pct TICKS-AT-START SECONDS: the machine's busy share since then, in percent of all its cores
  echo $(( ( $(cpu_busy) - $1 ) * 100 / ticks / cores / ( $2 > 0 ? $2 : 1 ) ))
}
# The free disk under the checkout (df, in MiB) at each stage's end: a run needs ~25 GiB from empty caches (Go's
# module and build caches, three node_modules, management clusters), and on a shared disk an ENOSPC otherwise reads
# as the failing stage's own fault.
disk_free() { df -Pm "$CAPZ_ROOT" | awk 'NR==2{print $4}'; }
free0=$(disk_free)
[ "$free0" -ge 20480 ] ||
  capz_log "warning: only $(( free0 / 1024 )) GiB free under $CAPZ_ROOT; a run from empty caches writes ~25 GiB"
stage_times=()
stage() { # stage NAME COMMAND...: runs a stage, timing it
  local name=$1; shift
  local s c d; s=$(date +%s) c=$(cpu_busy)
  capz_log "── $name"
  "$@"
  d=$(( $(date +%s) - s ))
  stage_times+=("$(printf '%6ss  %3s%% busy  %7s MiB free  %s' "$d" "$(busy_pct "$c" "$d")" "$(disk_free)" "$name")")
  capz_log "── $name: ok in ${d}s"
}
stage_report() { # each stage's time, also when a stage failed (printed from the EXIT trap)
  [ ${#stage_times[@]} -gt 0 ] || return 0
  local d=$(( $(date +%s) - t0 ))
  capz_log "stage times (busy: the machine's $cores cores over the stage; free: the disk after it):"
  printf '  %s\n' "${stage_times[@]}" >&2
  capz_log "the machine was $(busy_pct "$cpu0" "$d")% busy over the run's ${d}s: $(( ( $(cpu_busy) - cpu0 ) / ticks )) CPU-seconds of the $(( d * cores )) its $cores cores had"
  local f; f=$(disk_free)
  capz_log "the disk had $(( free0 / 1024 )) GiB free at the start and $(( f / 1024 )) GiB at the end"
  [ "$f" -ge 1024 ] || capz_log "the disk is (nearly) full: a failure above may be ENOSPC, not the stage's own"
}
trap stage_report EXIT

ensure_chromium() {
  if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then return 0; fi
  capz_log "installing Chromium from Debian (Playwright cannot download its own browser here)"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >&2
}

ensure_postgres() { # a throw-away PostgreSQL server for the store tests (TestDatabases reads the connection string)
  local bin; bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ ! -x "$bin/postgres" ]; then
    capz_log "installing PostgreSQL from Debian"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >&2
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  local major; major=$("$bin/postgres" --version | sed -E 's/[^0-9]*([0-9]+).*/\1/')
  local dir="$CAPZ_ROOT/.local/postgres/run-$$" port as=()
  # Below the ephemeral range: an outbound connection cannot take it between the pick and the bind.
  port=$(node packages/mgmt-cluster/src/cli.ts port)
  rm -rf "$dir" && mkdir -p "$dir"
  # initdb refuses to run as root: the server runs as the postgres user then.
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; as=(runuser -u postgres --); fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s start \
    -o "-F -p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
  # Stopped when this script exits, however it exits (later stages replace the EXIT trap). Like the other watchers
  # below, it ignores the signals a terminal's Ctrl-C or a runner sends to this script's whole process group: killed
  # with the script, it would leave what it watches running.
  (trap '' INT TERM HUP; while kill -0 $$ 2>/dev/null; do sleep 1; done
   "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -s stop; rm -rf "$dir") </dev/null >/dev/null 2>&1 &
  export "BACKSTAGE_TEST_DATABASE_POSTGRES${major}_CONNECTION_STRING=postgresql://postgres@127.0.0.1:$port"
}

# The Go modules of the background builds below, fetched from the start at normal priority and many at a time, while
# the dependencies install: the builds compile at nice 19 and would otherwise fetch two at a time, starved
# (scripts/fetch-go-modules.sh).
if want integration || want e2e || want real; then
  setsid bash -c './scripts/fetch-go-modules.sh > "$1/go-modules.log" 2>&1' _ "$reports" </dev/null &
  go_modules=$!
fi
stage "dependencies" capz_install_deps
stage "chromium" ensure_chromium
stage "postgresql" ensure_postgres
# Two Go builds run in the background while the checks and unit tests run, each in a session of its own so that it
# can be stopped as a group when this script exits, however it exits:
# - the Kubernetes binaries (~6-11 min cold, 10 ms cached), at normal priority: the integration stages need them first;
# - the real CAPI/CAPZ/ASO managers (~1 s cached, ~15 min cold) for the lane, at normal priority too: the managers'
#   build and then the lane are the run's longest chain from empty caches (2026-12-05: starved at the lowest
#   priority beside the checks and unit tests, CAPI's manager alone took 1,519 s for 398 CPU-seconds), and every test
#   tolerates a busy machine (scripts/test-under-load.sh).
# A new session is a new scheduler autogroup (sched_autogroup_enabled=1 on this machine kind) and `nice` only ranks
# processes inside one autogroup, so a build that is to yield sets its own autogroup's nice (/proc/PID/autogroup,
# man 7 sched), as Gitea's below does.
# shellcheck disable=SC2016 # expanded by the inner shell
setsid bash -c 'node packages/mgmt-cluster/src/cli.ts build > "$1/build-kubernetes.log" 2>&1
  echo $? > "$1/build-kubernetes.rc"' _ "$reports" </dev/null &
kubernetes_build=$!
# shellcheck disable=SC2016 # expanded by the inner shell
if want real; then
setsid bash -c 'CAPZ_GO_NICE=0 node packages/mgmt-cluster/src/cli.ts build-controllers > "$1/build-controllers.log" 2>&1
  echo $? > "$1/build-controllers.rc"' _ "$reports" </dev/null &
controllers_build=$!
fi
# - Gitea v1.26.0 from its Go module (packages/git-server/scripts/build-gitea.sh; ~1 s cached, minutes cold) for the
#   Gitea pull-request tests (the backend integration stage and e2e), at the lowest priority until the Kubernetes
#   binaries are built;
# - then, in the same session, Flux's source- and kustomize-controller v1.9.6 from their Go modules
#   (packages/mgmt-cluster/scripts/build-flux.sh; ~0.5 s cached, ~6 min cold on an idle machine) for the e2e stage's
#   GitOps test; the lane's own call then finds it built, or waits for this build (one build per cache key). After
#   Gitea, not beside it: the backend stage needs Gitea half an hour before the e2e stage needs Flux, and two cold
#   builds at once on 2 cores only finish both later.
if want integration || want e2e; then
# shellcheck disable=SC2016 # expanded by the inner shell
setsid bash -c 'echo 19 > "/proc/$$/autogroup" 2>/dev/null || true
  nice -n 19 ionice -c 3 node packages/git-server/src/gitea-cli.ts build > "$1/build-gitea.log" 2>&1
  echo $? > "$1/build-gitea.rc"
  [ "$2" = yes ] || exit 0
  nice -n 19 ionice -c 3 node packages/mgmt-cluster/src/cli.ts build-flux > "$1/build-flux-e2e.log" 2>&1
  echo $? > "$1/build-flux-e2e.rc"' _ "$reports" "$(want e2e && echo yes || echo no)" </dev/null &
gitea_build=$!
flux_build=$gitea_build
fi
(trap '' INT TERM HUP; while kill -0 $$ 2>/dev/null; do sleep 1; done
 kill -- -"$kubernetes_build" ${controllers_build:+-"$controllers_build"} ${gitea_build:+-"$gitea_build"} \
   ${go_modules:+-"$go_modules"} 2>/dev/null || true) </dev/null >/dev/null 2>&1 &
wait_build() { # wait_build PID NAME: waits for a background build (its .rc, or its session's end), fails with its log tail
  local pid=$1 name=$2 s; s=$(date +%s)
  while [ ! -s "$reports/build-$name.rc" ] && kill -0 "$pid" 2>/dev/null; do sleep 2; done
  capz_log "waited $(( $(date +%s) - s ))s for the $name build"
  [ "$(cat "$reports/build-$name.rc" 2>/dev/null)" = 0 ] || { tail -40 "$reports/build-$name.log" >&2; return 1; }
}
if want checks; then
  # Once for the whole run (`tsc:fresh`, as strict as API Extractor's `--skipLibCheck false`): the api reports below
  # read its declarations (dist-types, emptied first: nothing of a file deleted since), and the install check's
  # `yarn tsc` finds them current (incremental: 11 s instead of 49). Three compiles were ~100 CPU-seconds more.
  stage "type-check" yarn tsc:fresh
  stage "lint" yarn lint:all
  # One format for every file (Backstage's prettier config): a misformatted file fails the run here.
  stage "format" yarn prettier:check
  stage "citations" node scripts/check-citations.mjs
  # A published plugin's habits (docs/release.md): backstage blocks, README/CHANGELOG/catalog-info per package, and
  # the public API equal to the committed report.api.md (from the type-check stage's fresh compile above).
  stage "release metadata" node scripts/check-release.mjs
  stage "api reports" yarn build:api-reports:only --ci
fi
# Jest suites named *.integration.test.* need the run's management cluster: they run after it is up.
want unit && stage "unit tests" env CI=true yarn test --testPathIgnorePatterns '\.(integration|real-controllers)\.test\.' --json --outputFile="$reports/jest.json"
# The benchmark's pure parts (its goals table and report), node:test as the other internal packages; seconds.
want unit && stage "unit tests: bench" bash -c "set -o pipefail; yarn workspace @internal/bench test | tee '$reports/unit-bench.log'"

stage "kubernetes binaries (background build)" wait_build "$kubernetes_build" kubernetes
[ -z "${gitea_build:-}" ] || echo 0 > "/proc/$gitea_build/autogroup" 2>/dev/null || true

# The real-controllers lane, in the background in a session of its own: it waits for the managers' build, then runs
# scripts/test-real-controllers.sh (its own management clusters and ports); its output goes to lane.log. The last
# stage below waits for it and reports it.
if want real; then
capz_log "the real-controllers lane runs in the background once the managers are built: $reports/lane.log"
# shellcheck disable=SC2016 # expanded by the inner shell
setsid bash -c 'while [ ! -s "$1/build-controllers.rc" ]; do sleep 2; done
  date +%s > "$1/lane.start"
  if [ "$(cat "$1/build-controllers.rc")" = 0 ]; then ./scripts/test-real-controllers.sh "$1" > "$1/lane.log" 2>&1
  else echo "the managers did not build (build-controllers.log)" > "$1/lane.log"; false; fi
  echo $? > "$1/lane.rc"' _ "$reports" </dev/null &
lane=$!
(trap '' INT TERM HUP; while kill -0 $$ 2>/dev/null; do sleep 1; done; kill -- -"$lane" 2>/dev/null || true) </dev/null >/dev/null 2>&1 &
fi
if want integration || want e2e; then

# One real management cluster for the whole run; every test gets namespaces of its own.
cluster="test-$$"
kubeconfig=$(node packages/mgmt-cluster/src/cli.ts start --name "$cluster" --ephemeral)
trap 'stage_report; node "$CAPZ_ROOT/packages/mgmt-cluster/src/cli.ts" stop --name "$cluster" || true' EXIT
export CAPZ_TEST_CLUSTER="$(dirname "$kubeconfig")/cluster.json" CAPZ_KUBECONFIG="$kubeconfig" CAPZ_TEST_CLUSTER_NAME="$cluster"

want integration && stage "integration tests: management cluster" bash -c "set -o pipefail; yarn workspace @internal/mgmt-cluster test | tee '$reports/integration-mgmt.log'"
want integration && stage "integration tests: simulated world" bash -c "set -o pipefail; yarn workspace @internal/capz-sim test | tee '$reports/integration-sim.log'"

# The demo scenarios, simulated in the background for the backend and e2e stages (only in their team-* namespaces,
# so they never touch the namespaces of the simulation tests above).
node packages/capz-sim/src/cli.ts run --cluster "$cluster" --scenarios all --operation-ms 100 --namespace-prefix team- \
  > "$reports/capz-sim.log" 2>&1 &
sim_pid=$!
trap 'stage_report; kill "$sim_pid" 2>/dev/null || true; rm -rf "$CAPZ_ROOT/.local/capz-sim/$cluster"; node "$CAPZ_ROOT/packages/mgmt-cluster/src/cli.ts" stop --name "$cluster" || true' EXIT
# The simulator's ARM endpoint and Entra ID for the backend's AKS discovery (capz.azureDiscovery): the config file it
# writes once they serve, for the integration tests and (through playwright.config.ts) the e2e backend.
export CAPZ_AZURE_DISCOVERY_CONFIG="$CAPZ_ROOT/.local/capz-sim/$cluster/app-config.azure-discovery.yaml"
wait_discovery_config() {
  local _
  for _ in $(seq 1 120); do
    [ -s "$CAPZ_AZURE_DISCOVERY_CONFIG" ] && return 0
    kill -0 "$sim_pid" 2>/dev/null || { tail -20 "$reports/capz-sim.log" >&2; return 1; }
    sleep 0.5
  done
  echo "no $CAPZ_AZURE_DISCOVERY_CONFIG after 60 s" >&2; return 1
}
stage "simulated Azure endpoints" wait_discovery_config
# The backend stage's Gitea test (scaffolder module) and the e2e stage start Gitea: its build first.
stage "gitea (background build)" wait_build "$gitea_build" gitea
# The backend stage's Jest worlds start management clusters and simulated Azure of their own: under a state directory
# of the stage (never .local/mgmt-clusters, where the demo's live), swept after the stage (what a suite left running
# fails it) and, by a watcher like PostgreSQL's, when this script ends however it ends: a Jest stopped with it runs no
# afterAll, and the clusters lead process groups of their own.
backend_state="$CAPZ_ROOT/.local/backend-integration/run-$$"
backend_integration() {
  run_swept "$backend_state" "the backend's integration suites" - env CI=true yarn test \
    --testPathPatterns '\.integration\.test\.' --json --outputFile="$reports/jest-integration.json"
}
if want integration; then
  (trap '' INT TERM HUP; while kill -0 $$ 2>/dev/null; do sleep 1; done; sweep_state "$backend_state" || true) \
    </dev/null >/dev/null 2>&1 &
  stage "integration tests: backend" backend_integration
fi
fi
if want e2e; then
build_app() { # the bundle listing is long: keep it in a log, show it only on failure
  yarn workspace app build > "$reports/app-build.log" 2>&1 || { tail -50 "$reports/app-build.log" >&2; return 1; }
}
stage "build app" build_app
# A local Git server over smart HTTP (packages/git-server: git-http-backend) for the template's git delivery: the e2e
# backend proposes clusters to its gitops repository (scaffolder.capz.gitops.repoUrl), the e2e test reads the branch.
start_git_server() {
  local root="$CAPZ_ROOT/.local/git-server/$cluster" _
  rm -rf "$root" && mkdir -p "$root"
  node packages/git-server/src/cli.ts --root "$root" --repo gitops --url-file "$root/url" --exit-with $$ \
    > "$reports/git-server.log" 2>&1 &
  for _ in $(seq 1 60); do [ -s "$root/url" ] && break; sleep 0.5; done
  [ -s "$root/url" ] || { cat "$reports/git-server.log" >&2; return 1; }
  CAPZ_GITOPS_REPO_URL=$(cat "$root/url"); export CAPZ_GITOPS_REPO_URL
}
stage "git server" start_git_server
# Gitea (packages/git-server/src/gitea-cli.ts) for the template's pull-request delivery on a real forge: a `gitops`
# repository of its admin user; the info file names its URL, credentials and the backend's integrations.gitea config
# (playwright.config.ts passes it to the e2e backend; the e2e test reads the pull request through Gitea's API).
start_gitea() {
  local root="$CAPZ_ROOT/.local/gitea/$cluster" _
  rm -rf "$root" && mkdir -p "$root"
  node packages/git-server/src/gitea-cli.ts start --root "$root" --repo gitops \
    --port "$(node packages/mgmt-cluster/src/cli.ts port)" --info-file "$root/info.json" --exit-with $$ \
    > "$reports/gitea.log" 2>&1 &
  for _ in $(seq 1 240); do [ -s "$root/info.json" ] && break; sleep 0.5; done
  [ -s "$root/info.json" ] || { cat "$reports/gitea.log" >&2; return 1; }
  export CAPZ_GITEA_INFO="$root/info.json"
}
stage "gitea" start_gitea
# Flux on the run's management cluster (stopped with it): the e2e GitOps test points a GitRepository at Gitea's
# `gitops` repository and a Kustomization at the template's folder (e2e/tests/scaffolder.spec.ts).
start_flux() {
  node packages/mgmt-cluster/src/cli.ts flux start --name "$cluster" > "$reports/flux-start.log" 2>&1 ||
    { tail -40 "$reports/flux-start.log" >&2; return 1; }
}
stage "flux (background build)" wait_build "$flux_build" flux-e2e
stage "flux" start_flux
stage "e2e tests" yarn test:e2e
fi
# docs/install.md followed literally on a fresh @backstage/create-app app with the packed plugins (its own management
# cluster; cached under .local/install-check: ~10 min cold, ~1.5 min when nothing changed). In the foreground: beside
# the integration stages and the lane it added to a load under which the lane's backends did not start in time.
install_check() { ./scripts/install-check.sh > "$reports/install-check.log" 2>&1 || { tail -60 "$reports/install-check.log" >&2; return 1; }; echo pass > "$reports/install-check.result"; }
want install && stage "install check" install_check
real_controllers() { # waits for the background lane; says how long it ran and how long this end waited for it
  local s; s=$(date +%s)
  while kill -0 "$lane" 2>/dev/null; do sleep 2; done
  local started; started=$(cat "$reports/lane.start" 2>/dev/null || echo "$s")
  capz_log "the lane started $(( started - t0 ))s into the run, after the managers' build ($(cat "$reports/build-controllers.rc" 2>/dev/null)), ran $(( $(date +%s) - started ))s; waited $(( $(date +%s) - s ))s for it here"
  [ "$(cat "$reports/lane.rc" 2>/dev/null)" = 0 ] || {
    tail -80 "$reports/lane.log" >&2; tail -20 "$reports/build-controllers.log" >&2; return 1; }
}
want real && stage "real controllers (background lane)" real_controllers

stage_report; stage_times=() # printed here, not after the summary: its line stays the last
capz_log "all stages passed in $(( $(date +%s) - t0 ))s"
node scripts/summarize-tests.mjs "$reports"
