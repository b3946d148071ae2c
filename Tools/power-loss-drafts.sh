#!/usr/bin/env bash
# Runs the drafts' power-loss test with more seeds than CI does: each seed a run of events cut at a random moment
# under the power-loss storage, the restore checked against the independent model (Docs/Reliability.md).
# usage: Tools/power-loss-drafts.sh [RUNS]   (default 2000; CI runs 40). Exit 3: a run that hung (killed after a bound).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-2000}"
case "$runs" in '' | *[!0-9]*) echo "power-loss-drafts: RUNS must be a number, not '$runs'" >&2; exit 2 ;; esac
swift build --build-tests
# A run takes about 10 ms a seed; a wait never answered must fail the run, not hang it.
limit=$((120 + runs / 5))
status=0
DRAFT_POWER_LOSS_RUNS="$runs" timeout "$limit" swift test --skip-build --filter "DraftTests/powerLoss" || status=$?
if [ "$status" -eq 124 ]; then
    echo "power-loss-drafts: $runs runs did not finish in $limit s: a draft stopped answering (a hang)" >&2
    exit 3
fi
exit "$status"
