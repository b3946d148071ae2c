#!/usr/bin/env bash
# Runs the Observing test suite under ThreadSanitizer and fails on any report.
#
#   Tools/tsan.sh                 # all ObservingTests
#   Tools/tsan.sh ConcurrencyTests   # a narrower filter
#
# Bounded in time (TSAN_TIMEOUT seconds, default 1200, for the build and the run together) and kept
# in its own scratch path so it does not invalidate the normal debug build.
set -euo pipefail

cd "$(dirname "$0")/.."
filter="${1:-ObservingTests}"
scratch=".build/tsan"
log="$scratch/tsan.log"
mkdir -p "$scratch"

# halt_on_error makes the first report fail the run; the grep below also catches reports from
# threads that raced with the exit.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:handle_segv=0"  # see Tools/sanitize.sh

status=0
timeout "${TSAN_TIMEOUT:-1200}" \
    swift test --sanitize=thread --scratch-path "$scratch" --filter "$filter" >"$log" 2>&1 || status=$?

if grep -qE "(WARNING|SUMMARY|ERROR): ThreadSanitizer" "$log"; then
    grep -A 40 "WARNING: ThreadSanitizer" "$log" | head -120
    echo "tsan.sh: ThreadSanitizer reported a problem (full log: $log)" >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    tail -40 "$log"
    if [ "$status" -eq 124 ]; then
        echo "tsan.sh: timed out after ${TSAN_TIMEOUT:-1200} s" >&2
    else
        echo "tsan.sh: swift test failed with status $status (full log: $log)" >&2
    fi
    exit 1
fi
grep -E "Test run with" "$log" | tail -1
echo "tsan.sh: no ThreadSanitizer report"
