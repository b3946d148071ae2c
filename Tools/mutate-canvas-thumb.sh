#!/usr/bin/env bash
# Runs thousands of mutated copies of the fixture videos through the release canvas-thumb.
#
#   Tools/mutate-canvas-thumb.sh [--count N] [--seed S] [--batch B] [--singles K] [--seconds T]
#
# The inputs come from `fuzz-inputs videos` (seeded: the same seed gives the same bytes; bits flipped, ranges
# overwritten, truncated, chunks duplicated or dropped, spliced with another fixture) into the git-ignored
# .fuzz/thumb/. They go through canvas-thumb in batches of B inputs per call (each batch with other options: keyframe,
# exact at 50%, last frame, skip-dark, JPEG), then K of them one per call with -o. Every call must:
#   - exit 0 or 1 (never 2, never a signal, never a hang past its timeout);
#   - print one JSON line per input (batches), whose error, when there is one, is a non-empty one-line reason, or one
#     `canvas-thumb: REASON` line on standard error (single runs that fail);
#   - leave in the output folder exactly the covers it reported, each complete (a PNG ending in IEND, a JPEG ending in
#     FFD9), and no temporary file.
# Findings (inputs of a failed check) are copied to .fuzz/thumb/findings/. Exit status: 0 when nothing was found.
set -euo pipefail
cd "$(dirname "$0")/.."

count=2000 seed=1 batch=250 singles=200 seconds=900
while [ $# -gt 0 ]; do
    case "$1" in
        --count) count="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --batch) batch="$2"; shift 2 ;;
        --singles) singles="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        *) echo "usage: $0 [--count N] [--seed S] [--batch B] [--singles K] [--seconds T]" >&2; exit 2 ;;
    esac
done

work=.fuzz/thumb
rm -rf "$work"
mkdir -p "$work/inputs" "$work/out" "$work/findings"
echo "mutate-canvas-thumb: building canvas-thumb and fuzz-inputs (release)"
swift build -c release --product canvas-thumb >/dev/null
swift build -c release --product fuzz-inputs >/dev/null
bin=$(swift build -c release --show-bin-path)

seeds=()
for file in Fixtures/*.mp4 Fixtures/*.webm Fixtures/*.ts Fixtures/*.avi Fixtures/*.m4a; do
    [ -s "$file" ] && seeds+=("$file")
done
"$bin/fuzz-inputs" videos --seed "$seed" --count "$count" --out "$work/inputs" "${seeds[@]}"
mapfile -t inputs < <(find "$work/inputs" -name 'm-*' | sort)

start=$(date +%s)
deadline=$((start + seconds))
: >"$work/all.jsonl"
findings=0 calls=0 tried=0 written=0 failed=0
declare -A exits=()
finding() {  # finding MESSAGE FILE...
    findings=$((findings + 1))
    echo "FINDING: $1" | tee -a "$work/findings/list.txt"
    shift
    for file in "$@"; do cp "$file" "$work/findings/" 2>/dev/null || true; done
}

# Checks the output folder after a call: no temporary file, only complete covers.
check_folder() {  # check_folder DIR EXPECTED_COUNT INPUTS...
    local dir="$1" expected="$2"
    shift 2
    local leftovers
    leftovers=$(find "$dir" -name '.*.tmp-*' | wc -l)
    [ "$leftovers" -eq 0 ] || finding "$leftovers temporary files left in $dir" "$@"
    local files
    files=$(find "$dir" -type f | wc -l)
    [ "$files" -eq "$expected" ] || finding "$files files in $dir, $expected covers reported" "$@"
    local cover tail
    for cover in "$dir"/*; do
        [ -f "$cover" ] || continue
        tail=$(tail -c 8 "$cover" | od -An -tx1 | tr -d ' \n')
        case "$cover" in
            *.png) [ "$tail" = "49454e44ae426082" ] || finding "incomplete PNG $cover" "$@" ;;
            *.jpg) [ "${tail: -4}" = "ffd9" ] || finding "incomplete JPEG $cover" "$@" ;;
        esac
    done
}

option_sets=("" "--exact --percent 50" "--percent 100" "--skip-dark --time 1" "--format jpeg --max-size 0x0")
batch_number=0
for ((first = 0; first < ${#inputs[@]}; first += batch)); do
    [ "$(date +%s)" -lt "$deadline" ] || break
    group=("${inputs[@]:first:batch}")
    options=${option_sets[$((batch_number % ${#option_sets[@]}))]}
    batch_number=$((batch_number + 1))
    rm -rf "$work/out" && mkdir -p "$work/out"
    status=0
    # shellcheck disable=SC2086  # the options are words
    timeout 600 "$bin/canvas-thumb" "${group[@]}" --output-dir "$work/out" --max-size 160x120 --jobs 2 --json \
        $options >"$work/batch.jsonl" 2>"$work/batch.err" || status=$?
    calls=$((calls + 1)) tried=$((tried + ${#group[@]}))
    exits[$status]=$((${exits[$status]:-0} + 1))
    cat "$work/batch.jsonl" >>"$work/all.jsonl"
    lines=$(wc -l <"$work/batch.jsonl")
    ok=$(grep -c '"error":null' "$work/batch.jsonl" || true)
    written=$((written + ok)) failed=$((failed + lines - ok))
    if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
        finding "batch $batch_number ($options) exited $status" 
        # Find the inputs that do it, one per call.
        for input in "${group[@]}"; do
            rm -rf "$work/one" && mkdir -p "$work/one"
            single=0
            # shellcheck disable=SC2086
            timeout 60 "$bin/canvas-thumb" "$input" --output-dir "$work/one" --max-size 160x120 --json $options \
                >/dev/null 2>&1 || single=$?
            [ "$single" -le 1 ] || finding "$input alone ($options) exits $single" "$input"
        done
        continue
    fi
    [ "$lines" -eq "${#group[@]}" ] || finding "batch $batch_number: $lines JSON lines for ${#group[@]} inputs"
    if grep -v '"error":null' "$work/batch.jsonl" | grep -qv '"error":"[^"]'; then
        finding "batch $batch_number: a failure without a reason"
    fi
    check_folder "$work/out" "$ok" "${group[@]}"
done

single_runs=0
for ((i = 0; i < singles && i < ${#inputs[@]}; i++)); do
    [ "$(date +%s)" -lt "$deadline" ] || break
    input=${inputs[$(( (i * 7919) % ${#inputs[@]} ))]}
    rm -rf "$work/one" && mkdir -p "$work/one"
    status=0
    timeout 60 "$bin/canvas-thumb" "$input" -o "$work/one/cover.png" --max-size 160x120 >/dev/null \
        2>"$work/single.err" || status=$?
    calls=$((calls + 1)) tried=$((tried + 1)) single_runs=$((single_runs + 1))
    exits[$status]=$((${exits[$status]:-0} + 1))
    case "$status" in
        0) written=$((written + 1)); check_folder "$work/one" 1 "$input" ;;
        1)
            failed=$((failed + 1))
            sed 's/^canvas-thumb: //' "$work/single.err" | sed 's/^/"error":"/' >>"$work/all.jsonl"
            [ "$(wc -l <"$work/single.err")" -eq 1 ] && grep -q '^canvas-thumb: .' "$work/single.err" ||
                finding "$input: not one 'canvas-thumb: REASON' line on failure" "$input"
            check_folder "$work/one" 0 "$input"
            ;;
        *) finding "$input alone exits $status" "$input" ;;
    esac
done

elapsed=$(($(date +%s) - start))
echo
echo "mutate-canvas-thumb: seed $seed, $count mutated inputs from ${#seeds[@]} fixtures"
echo "  ran: $calls canvas-thumb calls ($batch_number batches of up to $batch inputs, $single_runs single-file runs) in ${elapsed} s"
echo "  inputs tried: $tried; covers written: $written; failed with a reason: $failed"
for code in "${!exits[@]}"; do echo "  exit $code: ${exits[$code]} calls"; done | sort
echo "  failure reasons (most common, path removed):"
grep -ho '"error":"[^"]*' "$work/all.jsonl" 2>/dev/null | sed 's/"error":"[^:]*: //' | sed 's/[0-9.]\+ s/N s/g' |
    sort | uniq -c | sort -rn | head -8 | sed 's/^/    /' || true
echo "  findings: $findings"
[ "$findings" -eq 0 ]
