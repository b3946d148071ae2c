#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and under ThreadSanitizer, and fails on any report.
#
#   Tools/sanitize.sh [--address] [--thread] [--stress SECONDS THREADS] [--filter FILTER]
#
# Without --address or --thread, both run. Each sanitizer builds in its own scratch path (.build/asan, .build/tsan) so
# the normal debug build stays as it is. --stress sets MULTICANVAS_STRESS_SECONDS and MULTICANVAS_STRESS_THREADS for
# the stress tests (Observing's ConcurrencyTests.stress, CanvasKit's concurrent senders, CanvasHost's lifecycle test; CI's size
# is 1 s / 4 threads), e.g. `--stress 10 8`. Each run is bounded (SANITIZE_TIMEOUT seconds, default 1800, for its
# build and its tests together). Prints, per sanitizer, the build and test times, the tests run, and every report.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=() filter=""
while [ $# -gt 0 ]; do
    case "$1" in
        --address) sanitizers+=(address); shift ;;
        --thread) sanitizers+=(thread); shift ;;
        --stress) export MULTICANVAS_STRESS_SECONDS="$2" MULTICANVAS_STRESS_THREADS="$3"; shift 3 ;;
        --filter) filter="$2"; shift 2 ;;
        *) echo "usage: $0 [--address] [--thread] [--stress SECONDS THREADS] [--filter FILTER]" >&2; exit 2 ;;
    esac
done
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address thread)
echo "sanitize: ${sanitizers[*]}; stress ${MULTICANVAS_STRESS_SECONDS:-1} s x ${MULTICANVAS_STRESS_THREADS:-4} threads" \
    "${filter:+; filter $filter}"

# halt_on_error: the first report fails the run (the grep below also catches reports from threads racing the exit).
# handle_segv=0: a SIGSEGV is left to kill the process as it would without a sanitizer. canvas-thumb's fault tests send
# one to a worker process and check that the batch reports it as a crash by that signal; with the sanitizer's own
# handler the worker would instead print a report and exit with the sanitizer's status (66 under ThreadSanitizer).
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:handle_segv=0"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:handle_segv=0"
# LeakSanitizer's suppressions: places where Swift hides a live pointer from its scan, each justified in the file.
export LSAN_OPTIONS="suppressions=$PWD/Tools/lsan-suppressions.txt:print_suppressions=0"
# The Swift runtime's crash handler would print over the sanitizers' reports.
export SWIFT_BACKTRACE=enable=no

failed=0
for sanitizer in "${sanitizers[@]}"; do
    # Tests that exercise decoding rather than concurrency and run many processes skip themselves under "thread"
    # (ThumbnailsTests' RealWorldTests).
    export MULTICANVAS_SANITIZER="$sanitizer"
    short=${sanitizer:0:1}san
    scratch=".build/$short"
    log="$scratch/test.log"
    mkdir -p "$scratch"
    status=0
    started=$(date +%s)
    timeout "${SANITIZE_TIMEOUT:-1800}" swift build --build-tests --sanitize "$sanitizer" --scratch-path "$scratch" \
        >"$scratch/build.log" 2>&1 || status=$?
    built=$(date +%s)
    if [ "$status" -eq 0 ]; then
        bash Tools/test-bounded.sh "${SANITIZE_TIMEOUT:-1800}" --skip-build --sanitize "$sanitizer" \
            --scratch-path "$scratch" ${filter:+--filter "$filter"} >"$log" 2>&1 || status=$?
    else
        cp "$scratch/build.log" "$log"
    fi
    finished=$(date +%s)
    tests=$(grep -E "Test run with [0-9]+ tests" "$log" | tail -1 | sed 's/^.*Test run/Test run/' || true)
    echo "sanitize: $sanitizer: build $((built - started)) s, tests $((finished - built)) s: ${tests:-no summary}"
    reports=$(grep -cE "^(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)" "$log" || true)
    if [ "$reports" -gt 0 ]; then
        grep -E -A 30 "^(WARNING|ERROR): (ThreadSanitizer|AddressSanitizer|LeakSanitizer)" "$log" | head -150
        echo "sanitize: $sanitizer: $reports report(s) (full log: $log)" >&2
        failed=1
    elif [ "$status" -ne 0 ]; then
        # The failing tests and their issues first: in a log of hundreds of passes the tail alone rarely names them.
        grep -E -A 6 "✘|recorded an issue|Fatal error|fatal error" "$log" | grep -v "Cannot export local symbol" \
            | head -80 || true
        grep -v "Cannot export local symbol" "$log" | tail -20
        echo "sanitize: $sanitizer: failed with status $status (full log: $log)" >&2
        failed=1
    else
        echo "sanitize: $sanitizer: no report"
    fi
done
exit "$failed"
