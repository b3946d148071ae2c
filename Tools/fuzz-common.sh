# Shared by Tools/fuzz-covers.sh and Tools/fuzz-sim.sh (sourced, not run).

# build_fuzzer PRODUCT: the harness with libFuzzer and AddressSanitizer, in its own scratch path.
build_fuzzer() {
    echo "fuzz: building $1 (swift build -Xswiftc -sanitize=fuzzer,address, scratch .build/fuzz)"
    # The linker warns about every ASan check symbol it cannot export; the build's own errors still show.
    # `--sanitize fuzzer --sanitize address` would pass two -sanitize= flags in an order that changes from build to
    # build, and the compiler keeps only the last: half the builds had no coverage (libFuzzer: "no interesting
    # inputs"), the other half no AddressSanitizer checks in Swift code. One combined flag has both; SwiftPM's own
    # `--sanitize fuzzer` is kept because it also makes the link leave `main` to libFuzzer.
    if ! MULTICANVAS_FUZZ=1 swift build --scratch-path .build/fuzz --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address \
        --product "$1" >.build/fuzz-build.log 2>&1; then
        grep -v "Cannot export local symbol" .build/fuzz-build.log | tail -30
        echo "fuzz: the build of $1 failed" >&2
        exit 1
    fi
}

# run_fuzzer PRODUCT SECONDS JOBS CORPUS ARTIFACTS LIBFUZZER_OPTIONS...: runs it, prints the figures, and fails on a
# finding (or when the harness shows no coverage, which would mean the build lost its instrumentation).
run_fuzzer() {
    local product="$1" seconds="$2" jobs="$3" corpus="$4" artifacts="$5"
    shift 5
    local log=".fuzz/$product.log" before after status=0 started
    before=$(find "$artifacts" -type f | wc -l)
    local seeds
    seeds=$(find "$corpus" -type f | wc -l)
    echo "fuzz: $product for $seconds s, $jobs job(s), corpus $corpus ($seeds files), options $*"
    started=$(date +%s)
    # The Swift runtime's own crash handler would race libFuzzer's and AddressSanitizer's reports: off.
    # -fork keeps going after a finding when several jobs run; with one job the first finding stops the run.
    local parallel=()
    [ "$jobs" -gt 1 ] && parallel=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}" \
        timeout $((seconds + 120)) ".build/fuzz/debug/$product" "$corpus" -max_total_time="$seconds" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 "${parallel[@]}" "$@" >"$log" 2>&1 || status=$?
    after=$(find "$artifacts" -type f | wc -l)
    local runs cov corpus_after
    # One job: the final stats; several: the last progress line's count.
    runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | awk '{ total += $2 } END { print total + 0 }')
    [ "$runs" -gt 0 ] || runs=$(grep -oE "^#[0-9]+" "$log" | tail -1 | tr -d '#')
    cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+" || echo 0)
    corpus_after=$(find "$corpus" -type f | wc -l)
    echo "fuzz: $product ran $(($(date +%s) - started)) s: ${runs:-0} inputs tried, coverage $cov edges," \
        "corpus $seeds -> $corpus_after files, exit status $status"
    if [ "$after" -gt "$before" ] || { [ "$status" -ne 0 ] && [ "$jobs" -eq 1 ]; }; then
        grep -E "ERROR: |SUMMARY: |Fatal error|Precondition failed|==ERROR|deadly signal|Test unit written" "$log" |
            head -20
        echo "fuzz: FINDING: $((after - before)) new artifact(s) in $artifacts (log: $log)" >&2
        return 1
    fi
    if [ "$cov" -eq 0 ] || grep -q "no interesting inputs were found" "$log"; then
        echo "fuzz: the harness shows no coverage; rebuild with rm -rf .build/fuzz (log: $log)" >&2
        return 1
    fi
    echo "fuzz: nothing found"
}
