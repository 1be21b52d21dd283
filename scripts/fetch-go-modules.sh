#!/usr/bin/env bash
# Downloads the Go modules of the test command's background builds (the Kubernetes binaries, the real managers and
# controller-gen, Gitea, Flux) into Go's module cache: the four at once, many modules at a time, at the machine's
# normal priority, while the builds themselves compile at nice 19 beside the tests. A build whose cache entry exists
# is skipped (each script's --modules mode), so a warm re-run costs a second.
#
# Why: the go command fetches GOMAXPROCS modules at a time (Go 1.26: cmd/go/internal/modcmd/download.go line 187,
# `sem := make(chan token, runtime.GOMAXPROCS(0))`; a build's loader, modload/load.go line 1085,
# `par.NewQueue(runtime.GOMAXPROCS(0))`), two on this machine kind, and inside a build started at nice 19 each fetch
# also waits for a CPU the tests hold. From an empty GOMODCACHE beside the checks and unit tests, Gitea's
# `go mod download` took 891 s that way (2026-12-05). Fetching waits on the network, not on the CPU.
# Safe beside the builds: the go command locks each module version while it fetches it (modfetch/cache.go
# `lockVersion`, a lockedfile mutex), so a build that needs a module being fetched here waits for it and reuses it. A
# failure here only leaves the build to fetch what is missing, as it did before.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GOMAXPROCS=${CAPZ_GO_FETCH_PROCS:-16}
fetch() { # fetch NAME SCRIPT: one build's --modules, timed
  local name=$1 s rc=0; s=$(date +%s)
  bash "$2" --modules >/dev/null || rc=$?
  echo "fetch-go-modules: $name in $(( $(date +%s) - s ))s (exit $rc)" >&2
}
fetch kubernetes "$root/packages/mgmt-cluster/scripts/build-binaries.sh" &
fetch managers "$root/packages/mgmt-cluster/scripts/build-controllers.sh" &
fetch gitea "$root/packages/git-server/scripts/build-gitea.sh" &
fetch flux "$root/packages/mgmt-cluster/scripts/build-flux.sh" &
wait
