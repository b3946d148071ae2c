#!/usr/bin/env bash
# Benchmarks canvas-thumb as whole processes, side by side in one run:
#   1. one 1080p first-frame cover at 320x320: canvas-thumb as deployed (built by Tools/build-canvas-thumb.sh, the
#      Swift libraries linked in) vs the C floor (Tools/Floor/cover_floor.c, compiled here), ffmpegthumbnailer -s 320
#      -t 0, and ffmpeg -frames:v 1 with a scale filter;
#   2. the same on a 4K video, and at a 50% seek of the 1080p video;
#   3. 200 covers from 20 different files: one canvas-thumb call vs ffmpegthumbnailer once per file
#      through xargs -P with the same parallelism; and what the crash isolation costs: the same call
#      with its inputs in worker processes (the default) and on threads of one process
#      (CANVAS_THUMB_ISOLATION=threads), in interleaved rounds: wall time, and CPU time (user + system of the batch
#      and its workers, GNU time);
#   4. the batch against its ideal: one warm in-process cover of the batch's own 200 inputs (same options, one
#      thread, the allocator set as canvas-thumb sets it, Tools/ThumbnailBenchmark --warm-list) gives ideal
#      throughput = cores / warm time per cover, and the
#      batch's measured throughput (worker processes, and threads) is printed as a ratio of it, and of what that many
#      warm processes side by side give at the moment (the cores the machine really has free);
#   5. peak memory (GNU time's maximum resident set size) of each.
# Inputs are generated on demand into .bench/ (git-ignored). Prints medians (hyperfine) and ratios; every ratio is
# taken between figures measured in the same round, the rounds interleaving the commands it compares.
#   Tools/bench-canvas-thumb.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=20
[ "${1:-}" = "--runs" ] && runs="$2"
ideal_rounds=5
bash Tools/setup.sh --bench
command -v python3 >/dev/null || { echo "bench: python3 is needed to read hyperfine's JSON" >&2; exit 1; }

bench=.bench
mkdir -p "$bench/batch" "$bench/out"
gen() { # gen FILE SIZE SECONDS [extra filter]
    [ -s "$1" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=$2:rate=30${4:+,$4}" -t "$3" \
        -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 60 "$1"
}
gen "$bench/1080p.mp4" 1920x1080 30
gen "$bench/4k.mp4" 3840x2160 10
for i in $(seq -w 0 19); do gen "$bench/batch/src-$i.mp4" 1920x1080 2 "hue=h=$((10#$i * 18))"; done
ls "$bench"/batch/src-*.mp4 | head -20 > "$bench/sources.txt"
rm -f "$bench"/batch/in-*.mp4
n=0
for round in $(seq 0 9); do
    while read -r src; do
        ln -sf "$(basename "$src")" "$bench/batch/in-$(printf %03d $n).mp4"; n=$((n + 1))
    done < "$bench/sources.txt"
done
ls "$bench"/batch/in-*.mp4 > "$bench/inputs.txt"
(cd "$bench/batch" && ls in-*.mp4) > "$bench/names.txt"

cc -O2 Tools/Floor/cover_floor.c $(pkg-config --cflags --libs libavformat libavcodec libswscale libavutil) \
    -o "$bench/cover_floor"
# canvas-thumb as it is deployed: built by Tools/build-canvas-thumb.sh, with the Swift libraries linked in.
thumb="$(bash Tools/build-canvas-thumb.sh --print-path 2>/dev/null)"
swift build -c release --product ThumbnailBenchmark >/dev/null
thumb_bench="$(swift build -c release --show-bin-path)/ThumbnailBenchmark"
jobs=$(nproc)

median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.2f" % (x["median"]*1000) for x in r))' "$1"; }
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }   # kilobytes

compare() { # compare TITLE then 4 commands: ours floor ffmpegthumbnailer ffmpeg
    # In rounds: each round times the four commands (3 runs each, after one warm-up) in turn, the order rotating, so
    # that the machine's speed drifting during the row (on this VM the floor alone moved from 77 to 105 ms within a
    # minute) falls on every command alike; the ratios are taken per round and their median printed with their range.
    local title="$1"; shift
    local round rounds=$(((runs + 2) / 3)) commands
    : > "$bench/rounds.txt"
    for round in $(seq 1 "$rounds"); do
        case $((round % 4)) in
            0) commands=("$1" "$2" "$3" "$4") ;;
            1) commands=("$2" "$3" "$4" "$1") ;;
            2) commands=("$3" "$4" "$1" "$2") ;;
            3) commands=("$4" "$1" "$2" "$3") ;;
        esac
        hyperfine -N -w 1 -r 3 --export-json "$bench/h.json" "${commands[@]}" >/dev/null
        # The medians back in the order ours, floor, ffmpegthumbnailer, ffmpeg.
        python3 - "$bench/h.json" "$1" "$2" "$3" "$4" >> "$bench/rounds.txt" <<'PY'
import json, sys
medians = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
print(" ".join("%.3f" % medians[c] for c in sys.argv[2:6]))
PY
    done
    python3 - "$title" "$bench/rounds.txt" <<'PY'
import statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[2])]
med = [statistics.median(r[i] for r in rows) for i in range(4)]
floor = sorted(r[0] / r[1] for r in rows)
print("| %s | %.2f | %.2f | %.2f | %.2f | %.2fx (per-round %.2f-%.2f) | %.2fx | %.2fx |" % (
    sys.argv[1], med[0], med[1], med[2], med[3], statistics.median(floor), floor[0], floor[-1],
    statistics.median(r[2] / r[0] for r in rows), statistics.median(r[3] / r[0] for r in rows)))
PY
}

cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "canvas-thumb benchmark, $cpu, $(nproc) cores, FFmpeg $(pkg-config --modversion libavformat) (libavformat), $runs runs each ($(((runs + 2) / 3)) interleaved rounds of 3 for single covers), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| cover (320x320) | canvas-thumb ms | C floor ms | ffmpegthumbnailer ms | ffmpeg ms | ours / floor (median of per-round ratios) | ffmpegthumbnailer / ours | ffmpeg / ours |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
o="$bench/out"
compare "1080p first frame" \
    "$thumb $bench/1080p.mp4 -o $o/a.png --max-size 320x320" \
    "$bench/cover_floor $bench/1080p.mp4 $o/b.png 320" \
    "ffmpegthumbnailer -i $bench/1080p.mp4 -o $o/c.png -s 320 -t 0" \
    "ffmpeg -v error -y -i $bench/1080p.mp4 -frames:v 1 -vf scale=320:320:force_original_aspect_ratio=decrease $o/d.png"
compare "4K first frame" \
    "$thumb $bench/4k.mp4 -o $o/a.png --max-size 320x320" \
    "$bench/cover_floor $bench/4k.mp4 $o/b.png 320" \
    "ffmpegthumbnailer -i $bench/4k.mp4 -o $o/c.png -s 320 -t 0" \
    "ffmpeg -v error -y -i $bench/4k.mp4 -frames:v 1 -vf scale=320:320:force_original_aspect_ratio=decrease $o/d.png"
compare "1080p at 50% (keyframe)" \
    "$thumb $bench/1080p.mp4 -o $o/a.png --max-size 320x320 --percent 50" \
    "$bench/cover_floor $bench/1080p.mp4 $o/b.png 320 15" \
    "ffmpegthumbnailer -i $bench/1080p.mp4 -o $o/c.png -s 320 -t 50%" \
    "ffmpeg -v error -y -ss 15 -i $bench/1080p.mp4 -frames:v 1 -vf scale=320:320:force_original_aspect_ratio=decrease $o/d.png"

echo
echo "| 200 covers from 20 files, $jobs jobs | canvas-thumb (one call) | ffmpegthumbnailer per file (xargs -P $jobs) | throughput ratio |"
echo "| --- | --- | --- | --- |"
mkdir -p "$o/batch-ours" "$o/batch-ftn"
hyperfine -N -w 1 -r 5 --export-json "$bench/h.json" \
    "$thumb --output-dir $o/batch-ours --max-size 320x320 --jobs $jobs $(tr '\n' ' ' < "$bench/inputs.txt")" \
    "xargs -P $jobs -I{} -a $bench/names.txt ffmpegthumbnailer -i $bench/batch/{} -o $o/batch-ftn/{}.png -s 320 -t 0" \
    >/dev/null 2>&1 || true
read -r ours ftn <<< "$(median "$bench/h.json")"
printf '| median s | %.2f | %.2f | %.2fx |\n' "$(echo "$ours / 1000" | bc -l)" "$(echo "$ftn / 1000" | bc -l)" \
    "$(echo "$ftn / $ours" | bc -l)"
printf '| covers per second | %.0f | %.0f | |\n' "$(echo "200000 / $ours" | bc -l)" "$(echo "200000 / $ftn" | bc -l)"

echo
echo "| 200 covers, $jobs jobs, crash isolation | worker processes (default) | threads of one process | processes / threads |"
echo "| --- | --- | --- | --- |"
# Interleaved rounds, alternating which goes first, so that a change in the machine's load during the run falls on
# both (hyperfine would run all rounds of one, then all of the other).
batch_args=(--output-dir "$o/batch-ours" --max-size 320x320 --jobs "$jobs")
mapfile -t batch_inputs < "$bench/inputs.txt"
one_batch() { # one_batch processes|threads: prints the wall time in microseconds, then the CPU time (user + system
    # of the batch and of the workers it waited for, from GNU time) in milliseconds
    local start end
    start=$(date +%s%N)
    CANVAS_THUMB_ISOLATION="$1" /usr/bin/time -f "%U %S" -o "$bench/cpu.txt" \
        "$thumb" "${batch_args[@]}" "${batch_inputs[@]}" >/dev/null 2>&1
    end=$(date +%s%N)
    echo "$(((end - start) / 1000)) $(awk '{ printf "%.0f", ($1 + $2) * 1000 }' "$bench/cpu.txt")"
}
one_batch processes >/dev/null; one_batch threads >/dev/null   # warm-up
for round in $(seq 1 "$runs"); do
    if [ $((round % 2)) -eq 1 ]; then p=$(one_batch processes); t=$(one_batch threads)
    else t=$(one_batch threads); p=$(one_batch processes); fi
    echo "$p $t"
done > "$bench/isolation.txt"
# Wall and CPU time come from the same rounds. The CPU time (the batch with its workers) is the figure the machine's
# other work moves least; the wall time's per-round spread shows how much that work moved.
python3 - "$bench/isolation.txt" <<'PY'
import statistics, sys
rows = [tuple(map(int, line.split())) for line in open(sys.argv[1])]
for label, column, scale in (("median s", 0, 1e6), ("CPU s, user + system (median)", 1, 1e3)):
    p = statistics.median(r[column] for r in rows) / scale
    t = statistics.median(r[column + 2] for r in rows) / scale
    ratios = sorted(r[column] / r[column + 2] for r in rows)
    print("| %s | %.3f | %.3f | %.3fx (per-round ratios %.3f-%.3f) |" % (label, p, t, p / t, ratios[0], ratios[-1]))
PY

echo
echo "| 200 covers, $jobs jobs, against the ideal | warm cover ms (one thread, in-process) | ideal covers/s ($jobs / warm) | batch covers/s | batch / ideal | batch / $jobs warm processes side by side |"
echo "| --- | --- | --- | --- | --- | --- |"
# The warm cover and the batches take turns in each round (the order alternating), so that the shared machine's load
# falls on the ideal and on the measured throughput alike; the ratio is taken per round, and its median printed.
# The warm cover: Tools/ThumbnailBenchmark --warm-list over the batch's 20 source files (its 200 inputs are symlinks
# to them), with the batch's options (320x320 box, first frame, PNG written), one pass to warm up, then 10 timed.
# The last column is what the machine gives at that moment: $jobs such warm processes run side by side (on a machine
# other work shares, the cores the ideal counts may not all be free), against which the batch's own overhead shows.
mkdir -p "$o/warm"
# The warm loop keeps freed memory as canvas-thumb does (CoverMemory.keepFreedMemory()); `warm "" --default-allocator`
# is the same loop with glibc's defaults, printed for reference under the table.
warm() { "$thumb_bench" --warm-list "$bench/sources.txt" "$o/warm${1:-}" 10 ${2:+"$2"}; }
side_by_side() { # prints the mean of $jobs warm processes' times, run at once
    local i
    for i in $(seq 1 "$jobs"); do mkdir -p "$o/warm$i"; warm "$i" > "$bench/side-$i.txt" & done
    wait
    cat "$bench"/side-*.txt | awk '{ sum += $1 } END { printf "%.3f", sum / NR }'
}
for round in $(seq 1 "$ideal_rounds"); do
    if [ $((round % 2)) -eq 1 ]; then
        w=$(warm); s=$(side_by_side); p=$(one_batch processes | cut -d' ' -f1); t=$(one_batch threads | cut -d' ' -f1)
        d=$(warm "" --default-allocator)
    else
        d=$(warm "" --default-allocator)
        t=$(one_batch threads | cut -d' ' -f1); p=$(one_batch processes | cut -d' ' -f1); s=$(side_by_side); w=$(warm)
    fi
    echo "$w $p $t $s $d"
done > "$bench/ideal.txt"
python3 - "$jobs" "$bench/ideal.txt" <<'PY'
import statistics, sys
cores = int(sys.argv[1])
rows = [tuple(map(float, line.split())) for line in open(sys.argv[2])]
warm = statistics.median(r[0] for r in rows)
ideal = cores * 1000 / warm
for label, column in (("worker processes (default)", 1), ("threads of one process", 2)):
    rate = statistics.median(200e6 / r[column] for r in rows)
    ratios = sorted((200e6 / r[column]) / (cores * 1000 / r[0]) for r in rows)
    side = statistics.median((200e6 / r[column]) / (cores * 1000 / r[3]) for r in rows)
    print("| %s | %.2f | %.0f | %.0f | %.2fx (per-round %.2f-%.2f, median %.2f) | %.2fx |" % (
        label, warm, ideal, rate, rate / ideal, ratios[0], ratios[-1], statistics.median(ratios), side))
default = statistics.median(r[4] for r in rows)
print()
print("(the warm cover with glibc's default allocator, in the same rounds: %.2f ms, %.2fx the one with memory kept)" % (
    default, default / warm))
PY
echo "($cpu, $(nproc) cores; $ideal_rounds rounds; load average after the rows: $(cut -d' ' -f1-3 /proc/loadavg))"

echo
echo "| peak memory (max RSS, MB) | canvas-thumb | C floor | ffmpegthumbnailer | ffmpeg |"
echo "| --- | --- | --- | --- | --- |"
for input in 1080p 4k; do
    printf '| %s first frame | %.1f | %.1f | %.1f | %.1f |\n' "$input" \
        "$(echo "$(peak "$thumb" "$bench/$input.mp4" -o "$o/a.png" --max-size 320x320) / 1024" | bc -l)" \
        "$(echo "$(peak "$bench/cover_floor" "$bench/$input.mp4" "$o/b.png" 320) / 1024" | bc -l)" \
        "$(echo "$(peak ffmpegthumbnailer -i "$bench/$input.mp4" -o "$o/c.png" -s 320 -t 0) / 1024" | bc -l)" \
        "$(echo "$(peak ffmpeg -v error -y -i "$bench/$input.mp4" -frames:v 1 -vf scale=320:320:force_original_aspect_ratio=decrease "$o/d.png") / 1024" | bc -l)"
done
printf '| 200 covers, %s jobs | %.1f | | | |\n' "$jobs" \
    "$(echo "$(peak "$thumb" --output-dir "$o/batch-ours" --max-size 320x320 --jobs "$jobs" $(cat "$bench/inputs.txt")) / 1024" | bc -l)"
