#!/usr/bin/env bash
# The real-controllers lane (issue 12): the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, built from their
# Go modules (cached by a hash of the pins; cold ~15 min on an idle 2-core machine, up to ~47 min on a busy one), on
# management clusters of the lane's own, with only Azure simulated (Entra ID and ARM under their real names behind an
# HTTPS proxy, a workload API server with the clusters' Nodes). Runs:
#   packages/mgmt-cluster/test-real/*.test.ts   (node:test) managers, webhooks, conversion, the proxy, CAPZ's templates
#   plugins/capz-backend/**/*.real-controllers.test.ts (Jest) the jobs of a real backend against the real managers
# Reports go to $1 (default .local/reports): real-controllers.log (node:test), jest-real-controllers.json.
set -euo pipefail
# shellcheck source=toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
cd "$CAPZ_ROOT"
reports=${1:-"$CAPZ_ROOT/.local/reports"}
mkdir -p "$reports"
[ -x "$(command -v yarn)" ] || { echo "yarn not on PATH: run ./scripts/test.sh once (it installs the toolchain)" >&2; exit 1; }
node packages/mgmt-cluster/src/cli.ts build >/dev/null
node packages/mgmt-cluster/src/cli.ts build-controllers >/dev/null
bash -c "set -o pipefail; node --test --test-concurrency=1 packages/mgmt-cluster/test-real/*.test.ts | tee '$reports/real-controllers.log'"
CI=true yarn test --testPathPatterns '\.real-controllers\.test\.' --json --outputFile="$reports/jest-real-controllers.json"
