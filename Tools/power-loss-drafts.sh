#!/usr/bin/env bash
# Runs the drafts' power-loss test with more seeds than CI does: each seed a run of events cut at a random moment
# under the power-loss storage, the restore checked against the independent model (Docs/Reliability.md).
# usage: Tools/power-loss-drafts.sh [RUNS]   (default 2000; CI runs 40)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-2000}"
case "$runs" in '' | *[!0-9]*) echo "power-loss-drafts: RUNS must be a number, not '$runs'" >&2; exit 2 ;; esac
swift build --build-tests
DRAFT_POWER_LOSS_RUNS="$runs" swift test --skip-build --filter "DraftTests/powerLoss"
