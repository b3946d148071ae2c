#!/usr/bin/env bash
# Fuzzes canvas-sim's event language, for a bounded time, two ways.
#
#   Tools/fuzz-sim.sh [--seconds N] [--scripts K] [--seed S]
#
# 1. libFuzzer (Tools/Fuzz/ScriptFuzzer, built with -sanitize=fuzzer,address) for N seconds (default 120)
#    on `CanvasScript` parsing, seeded with Fixtures/sim/*.script into .fuzz/script-corpus/ (git-ignored). Any text
#    parses, or fails with a ParseError whose line and column lie inside the text; a parsed script prints as text
#    that parses back to the same commands, then runs on the pure board (I1-I3 after every event) and on a
#    BoardSimulation (no stale cell, no reload, no registration violation, no observation left alive).
# 2. End to end: K scripts (default 1000) from `fuzz-inputs scripts` (seeded; half generated from the language's
#    words with odd arguments, half mutated copies of Fixtures/sim/*.script) through the built canvas-sim, with
#    --format text or json and 1-12 cells: every run exits 0 (the script parsed and ran) or 2 with one error line
#    naming the line and column; never a signal, a hang (30 s) or another status.
# Findings go to .fuzz/script-artifacts/ and .fuzz/sim/findings/; the script then fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/fuzz-common.sh

seconds=120 scripts=1000 seed=1
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --scripts) scripts="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        *) echo "usage: $0 [--seconds N] [--scripts K] [--seed S]" >&2; exit 2 ;;
    esac
done

status=0
build_fuzzer script-fuzzer
mkdir -p .fuzz/script-corpus .fuzz/script-artifacts
for file in Fixtures/sim/*.script Fixtures/fuzz/script-*; do cp -n "$file" .fuzz/script-corpus/ 2>/dev/null || true; done
run_fuzzer script-fuzzer "$seconds" 1 .fuzz/script-corpus .fuzz/script-artifacts -timeout=10 -max_len=4096 ||
    status=1

echo "fuzz-sim: building canvas-sim and fuzz-inputs"
swift build --product canvas-sim >/dev/null
swift build -c release --product fuzz-inputs >/dev/null
sim="$(swift build --show-bin-path)/canvas-sim"
work=.fuzz/sim
rm -rf "$work" && mkdir -p "$work/findings" && : >"$work/errors.txt"
"$(swift build -c release --show-bin-path)/fuzz-inputs" scripts --seed "$seed" --count "$scripts" --out "$work/scripts" \
    Fixtures/sim/*.script
started=$(date +%s)
ran=0 parsed=0 malformed=0 findings=0
for script in "$work"/scripts/s-*.script; do
    number=${script##*s-}
    number=$((10#${number%.script}))
    format=$([ $((number % 2)) -eq 0 ] && echo text || echo json)
    cells=$((1 + number % 12))
    code=0
    timeout 30 "$sim" --script "$script" --cells "$cells" --format "$format" >"$work/out.txt" 2>"$work/err.txt" ||
        code=$?
    ran=$((ran + 1))
    case "$code" in
        0) parsed=$((parsed + 1)) ;;
        2)
            malformed=$((malformed + 1))
            head -1 "$work/err.txt" | sed -E 's/^canvas-sim: [^:]*: (line [0-9]+, column [0-9]+: )?//; s/'"'"'[^'"'"']*'"'"'/X/g' \
                >>"$work/errors.txt"
            if ! grep -qE "^canvas-sim: .*line [0-9]+, column [0-9]+: ." "$work/err.txt"; then
                findings=$((findings + 1))
                echo "FINDING: $script: status 2 without a line and column: $(head -1 "$work/err.txt")"
                cp "$script" "$work/findings/"
            fi
            ;;
        *)
            findings=$((findings + 1))
            echo "FINDING: $script (--cells $cells --format $format) exited $code: $(tail -1 "$work/err.txt")"
            cp "$script" "$work/findings/"
            ;;
    esac
done
echo "fuzz-sim: canvas-sim ran $ran scripts (seed $seed) in $(($(date +%s) - started)) s: $parsed ran to the end" \
    "(exit 0), $malformed malformed (exit 2 with a line and column), $findings findings"
echo "  most common errors (names replaced by X):"
sort "$work/errors.txt" 2>/dev/null | uniq -c | sort -rn | head -8 | sed 's/^/    /' || true
[ "$findings" -eq 0 ] || status=1
exit "$status"
