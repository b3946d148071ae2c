#!/usr/bin/env bash
# libFuzzer on the cover service's in-memory input path (`CoverGenerator.makeCover(from:)`), for a bounded time.
#
#   Tools/fuzz-covers.sh [--seconds N] [--jobs J] [-- LIBFUZZER_OPTIONS...]
#
# Builds Tools/Fuzz/CoverFuzzer with libFuzzer and AddressSanitizer (the harness target exists only when
# MULTICANVAS_FUZZ=1; its scratch path .build/fuzz keeps the normal build untouched), seeds the corpus
# .fuzz/cover-corpus/ (git-ignored, kept between runs so coverage accumulates) with the fixture videos, and runs for
# N seconds (default 120). A finding (crash, AddressSanitizer report, leak, input slower than 20 s, more than 3 GB) is
# written to .fuzz/cover-artifacts/ and the script fails; reproduce with
#   .build/fuzz/debug/cover-fuzzer .fuzz/cover-artifacts/crash-...
# It prints what ran, for how long, how many inputs were tried, the coverage reached and what was found.
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/fuzz-common.sh

seconds=120 jobs=1 extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "usage: $0 [--seconds N] [--jobs J] [-- LIBFUZZER_OPTIONS...]" >&2; exit 2 ;;
    esac
done

build_fuzzer cover-fuzzer
mkdir -p .fuzz/cover-corpus .fuzz/cover-artifacts
for file in Fixtures/*.mp4 Fixtures/*.webm Fixtures/*.ts Fixtures/*.avi Fixtures/*.m4a Fixtures/fuzz/cover-*; do
    [ -s "$file" ] && cp -n "$file" .fuzz/cover-corpus/ 2>/dev/null
done
run_fuzzer cover-fuzzer "$seconds" "$jobs" .fuzz/cover-corpus .fuzz/cover-artifacts \
    -timeout=20 -rss_limit_mb=3072 -max_len=131072 "${extra[@]}"
