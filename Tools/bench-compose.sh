#!/usr/bin/env bash
# Benchmarks canvas-compose as a whole process, side by side in one run (rounds interleave the commands compared):
#   1. four 720x1280 30 fps takes of 10 s (H.264 + AAC) into a 720x1280 2x2 grid, libx264 veryfast CRF 23, AAC
#      128 kbit/s: canvas-compose against the ffmpeg CLI doing the same job (scale + xstack + amix=normalize=0, the
#      same encoder settings), and against the floor: (CPU time decoding the four takes alone + CPU time encoding the
#      composed frames alone) / cores;
#   2. nine 1280x720 takes of 10 s into 1080x1920 (3x3): the real-time ratio (seconds of video per second);
#   3. peak memory (GNU time's maximum resident set size) of nine 1920x1080 takes, 5 s and 15 s long: the bound does
#      not grow with the takes' length; and of one such take in the same 3x3 grid, so that the difference is what the
#      eight other takes hold;
#   4. the same four takes as in 1, each cut into five segments of 2 s (at its keyframes, stream copied), composed as
#      takes of segments (A0+A1+...+A4): the time against the four whole takes (target <= 1.05x); and the four whole
#      takes with a looped stereo AAC soundtrack (--music --music-loop): the time against them without it (target
#      <= 1.05x, a soundtrack adds at most 5%).
# Inputs are generated once into .bench/compose/ (git-ignored). Prints the CPU model, the load average before and
# after, medians and ratios (and each round's own ratio to the CLI), and the CPU time other processes used while the
# commands compared ran (the load average counts the benchmark's own threads; this says whether the machine was
# quiet: it should be near 0).
#   Tools/bench-compose.sh [--runs N] [--priority] [--segments]
# --segments: only part 4 (and its baseline), for a quicker run.
# --priority (root, Linux with autogroup scheduling): raises this session's scheduling group to nice -15 first. On a
# shared machine every session gets an equal share of the cores whatever its processes' nice values, so the commands
# measured here would get one core of two; with it they run nearly as on a quiet machine (all of them alike).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3
priority=0
only_segments=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --priority) priority=1; shift ;;
        --segments) only_segments=1; shift ;;
        *) echo "usage: $0 [--runs N] [--priority] [--segments]" >&2; exit 2 ;;
    esac
done
if [ "$priority" -eq 1 ]; then
    echo -15 >/proc/self/autogroup || { echo "bench-compose.sh: --priority needs root and autogroup" >&2; exit 2; }
fi
bash Tools/setup.sh --bench
dir=.bench/compose
mkdir -p "$dir"
cores=$(nproc)
gen() { # gen FILE SIZE SECONDS FREQUENCY HUE
    [ -s "$1" ] || ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$2:rate=30,hue=h=$5" \
        -f lavfi -i "sine=frequency=$4:sample_rate=48000" -t "$3" \
        -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 60 -c:a aac -b:a 128k "$1"
}
for i in 0 1 2 3; do gen "$dir/take-$i.mp4" 720x1280 10 $((300 + 100 * i)) $((i * 90)); done
for i in 0 1 2 3 4 5 6 7 8; do
    [ "$only_segments" -eq 1 ] && break
    gen "$dir/hd-$i.mp4" 1280x720 10 $((300 + 50 * i)) $((i * 40))
    gen "$dir/fhd5-$i.mp4" 1920x1080 5 $((300 + 50 * i)) $((i * 40))
    gen "$dir/fhd15-$i.mp4" 1920x1080 15 $((300 + 50 * i)) $((i * 40))
done
# Part 4's inputs: each take cut at its keyframes (every 2 s) into five segments, and 4 s of stereo music.
segmented=()
for i in 0 1 2 3; do
    [ -s "$dir/take-$i-seg-4.mp4" ] || ffmpeg -nostdin -v error -y -i "$dir/take-$i.mp4" -c copy -f segment \
        -segment_time 2 -reset_timestamps 1 "$dir/take-$i-seg-%d.mp4"
    segmented+=("$(printf "$dir/take-$i-seg-%d.mp4+" 0 1 2 3 4 | sed 's/+$//')")
done
[ -s "$dir/music.m4a" ] || ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=220:sample_rate=48000" \
    -f lavfi -i "sine=frequency=330:sample_rate=48000" -filter_complex "[0:a][1:a]amerge=inputs=2" -t 4 \
    -c:a aac -b:a 128k "$dir/music.m4a"
swift build -c release --product canvas-compose >/dev/null
bin="$(swift build -c release --show-bin-path)/canvas-compose"
takes=("$dir"/take-{0,1,2,3}.mp4)

# CPU seconds all processes on the machine have used since boot (/proc/stat: user, nice, system, irq, softirq, steal).
busy() { awk '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / 100 }' /proc/stat; }
# measure NAME COMMAND...: appends "wall cpu rss others" to $dir/NAME.times, others being the CPU time every other
# process on the machine used meanwhile (0 on a quiet machine; the benchmark's own figures are only comparable then).
measure() {
    local name="$1" before after
    shift
    before=$(busy)
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.out" "$@" >/dev/null 2>"$dir/stderr.out" || {
        cat "$dir/stderr.out" >&2
        exit 1
    }
    after=$(busy)
    awk -v busy="$(echo "$after - $before" | bc)" \
        '{ others = busy - $2 - $3; printf "%s %.2f %s %.2f\n", $1, $2 + $3, $4, others < 0 ? 0 : others }' \
        "$dir/time.out" >>"$dir/$name.times"
}
median() { # median FILE COLUMN
    sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

rm -f "$dir"/*.times
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
ratio() { # ratio NAME BASELINE [COLUMN]: each round's ratio of wall-clock (1) or CPU (2) time, then their median
    local column="${3:-1}"
    paste "$dir/$1.times" "$dir/$2.times" | awk -v c="$column" '{ printf "%.3fx ", $c / $(c + 4) }'
    paste "$dir/$1.times" "$dir/$2.times" | awk -v c="$column" '{ print $c / $(c + 4) }' | sort -n |
        awk '{ v[NR] = $1 } END { printf "(median %.3fx)", v[int((NR + 1) / 2)] }'
}
if [ "$only_segments" -eq 1 ]; then
    for round in $(seq "$runs"); do
        measure compose "$bin" "${takes[@]}" -o "$dir/ours.mp4" --grid 2x2 --size 720x1280 --crf 23 --preset veryfast
        measure segments "$bin" "${segmented[@]}" -o "$dir/segments.mp4" --grid 2x2 --size 720x1280 --crf 23 \
            --preset veryfast
        measure music "$bin" "${takes[@]}" -o "$dir/music.mp4" --grid 2x2 --size 720x1280 --crf 23 \
            --preset veryfast --music "$dir/music.m4a" --music-loop
    done
    echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $cores cores; $runs rounds, medians"
    echo "load average (1, 5, 15 min): $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    printf "4 x 720x1280 10 s -> 720x1280 2x2, veryfast CRF 23: %.2f s wall, %.2f s CPU (others: %s s CPU)\n" \
        "$(median "$dir/compose.times" 1)" "$(median "$dir/compose.times" 2)" "$(median "$dir/compose.times" 4)"
    printf "  each take as 5 segments of 2 s: %.2f s wall, %.2f s CPU (target <= 1.05x)\n" \
        "$(median "$dir/segments.times" 1)" "$(median "$dir/segments.times" 2)"
    printf "    wall ratio %s; CPU ratio %s\n" "$(ratio segments compose)" "$(ratio segments compose 2)"
    printf "  with a looped soundtrack:       %.2f s wall, %.2f s CPU (target <= 1.05x)\n" \
        "$(median "$dir/music.times" 1)" "$(median "$dir/music.times" 2)"
    printf "    wall ratio %s; CPU ratio %s\n" "$(ratio music compose)" "$(ratio music compose 2)"
    exit 0
fi
filter="[0:v]scale=360:640[a];[1:v]scale=360:640[b];[2:v]scale=360:640[c];[3:v]scale=360:640[d];"
filter+="[a][b][c][d]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[v];"
filter+="[0:a][1:a][2:a][3:a]amix=inputs=4:normalize=0[m]"
# The composed frames, raw, for the encode-alone floor (made once from canvas-compose's own output).
"$bin" "${takes[@]}" -o "$dir/ours.mp4" --grid 2x2 --size 720x1280 --crf 23 --preset veryfast
ffmpeg -nostdin -v error -y -i "$dir/ours.mp4" -f rawvideo -pix_fmt yuv420p "$dir/composed.yuv"
# Each round runs the segments and the soundtrack just before the whole takes, and the whole takes just before the CLI:
# the ratios compare commands run next to each other (the host's speed drifts from minute to minute).
for round in $(seq "$runs"); do
    measure segments "$bin" "${segmented[@]}" -o "$dir/segments.mp4" --grid 2x2 --size 720x1280 --crf 23 \
        --preset veryfast
    measure music "$bin" "${takes[@]}" -o "$dir/music.mp4" --grid 2x2 --size 720x1280 --crf 23 --preset veryfast \
        --music "$dir/music.m4a" --music-loop
    measure compose "$bin" "${takes[@]}" -o "$dir/ours.mp4" --grid 2x2 --size 720x1280 --crf 23 --preset veryfast
    measure ffmpeg ffmpeg -nostdin -v error -y -i "${takes[0]}" -i "${takes[1]}" -i "${takes[2]}" -i "${takes[3]}" \
        -filter_complex "$filter" -map "[v]" -map "[m]" -c:v libx264 -preset veryfast -crf 23 \
        -c:a aac -b:a 128k "$dir/ffmpeg.mp4"
    for take in "${takes[@]}"; do measure "decode-$round" ffmpeg -nostdin -v error -i "$take" -map 0 -f null -; done
    awk -v r="$round" '{ s += $2 } END { printf "0 %.2f 0\n", s }' "$dir/decode-$round.times" >>"$dir/decode.times"
    measure encode ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt yuv420p -s 720x1280 -r 30 -i "$dir/composed.yuv" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=10" -c:v libx264 -preset veryfast -crf 23 \
        -c:a aac -b:a 128k -f mp4 /dev/null
    measure realtime "$bin" "$dir"/hd-{0,1,2,3,4,5,6,7,8}.mp4 -o "$dir/nine.mp4" --grid 3x3 --size 1080x1920
done
measure memory5 "$bin" "$dir"/fhd5-{0,1,2,3,4,5,6,7,8}.mp4 -o "$dir/fhd5.mp4" --grid 3x3 --size 1080x1920 --preset ultrafast
measure memory15 "$bin" "$dir"/fhd15-{0,1,2,3,4,5,6,7,8}.mp4 -o "$dir/fhd15.mp4" --grid 3x3 --size 1080x1920 --preset ultrafast
measure memory1 "$bin" "$dir/fhd5-0.mp4" -o "$dir/fhd1.mp4" --grid 3x3 --size 1080x1920 --preset ultrafast
rm -f "$dir/composed.yuv"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

compose_wall=$(median "$dir/compose.times" 1)
compose_cpu=$(median "$dir/compose.times" 2)
ffmpeg_wall=$(median "$dir/ffmpeg.times" 1)
ffmpeg_cpu=$(median "$dir/ffmpeg.times" 2)
decode_cpu=$(median "$dir/decode.times" 2)
encode_cpu=$(median "$dir/encode.times" 2)
realtime_wall=$(median "$dir/realtime.times" 1)
floor=$(echo "($decode_cpu + $encode_cpu) / $cores" | bc -l)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $cores cores; $runs rounds, medians"
echo "load average (1, 5, 15 min): $load_before before, $load_after after; $(cut -d' ' -f2- /proc/self/autogroup)"
printf "4 x 720x1280 10 s -> 720x1280 2x2, veryfast CRF 23, AAC 128k\n"
printf "  canvas-compose      %6.2f s wall  %6.2f s CPU  %s KB peak  (other processes meanwhile: %s s CPU)\n" \
    "$compose_wall" "$compose_cpu" "$(median "$dir/compose.times" 3)" "$(median "$dir/compose.times" 4)"
printf "  ffmpeg CLI          %6.2f s wall  %6.2f s CPU  %s KB peak  (other processes meanwhile: %s s CPU)\n" \
    "$ffmpeg_wall" "$ffmpeg_cpu" "$(median "$dir/ffmpeg.times" 3)" "$(median "$dir/ffmpeg.times" 4)"
printf "  decode alone        %6s         %6.2f s CPU\n" "" "$decode_cpu"
printf "  encode alone        %6s         %6.2f s CPU\n" "" "$encode_cpu"
printf "  floor (decode + encode CPU) / %d cores: %.2f s\n" "$cores" "$floor"
printf "  ratio to the ffmpeg CLI: %.2fx (target <= 0.8x)\n" "$(echo "$compose_wall / $ffmpeg_wall" | bc -l)"
printf "  ratio to the floor:      %.2fx (target <= 1.2x)\n" "$(echo "$compose_wall / $floor" | bc -l)"
# Each round runs canvas-compose and the CLI back to back: on a host whose speed drifts from minute to minute, the
# rounds' own ratios are steadier than the ratio of the medians.
printf "  each round's ratio to the ffmpeg CLI: %s(median %.2fx)\n" \
    "$(paste "$dir/compose.times" "$dir/ffmpeg.times" | awk '{ printf "%.2fx ", $1 / $5 }')" \
    "$(paste "$dir/compose.times" "$dir/ffmpeg.times" | awk '{ print $1 / $5 }' | sort -n |
        awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
printf "9 x 1280x720 10 s -> 1080x1920 3x3: %.2f s wall, %.2fx real time (other processes meanwhile: %s s CPU)\n" \
    "$realtime_wall" "$(echo "10 / $realtime_wall" | bc -l)" "$(median "$dir/realtime.times" 4)"
printf "9 x 1920x1080 -> 1080x1920 (ultrafast): peak %s KB with 5 s takes, %s KB with 15 s takes\n" \
    "$(median "$dir/memory5.times" 3)" "$(median "$dir/memory15.times" 3)"
printf "  one such take alone in the 3x3 grid: peak %s KB; each other take: %.0f KB\n" \
    "$(median "$dir/memory1.times" 3)" \
    "$(echo "($(median "$dir/memory5.times" 3) - $(median "$dir/memory1.times" 3)) / 8" | bc -l)"
printf "4 x 720x1280 as 5 segments of 2 s each: %.2f s wall; to whole takes: wall %s, CPU %s (target <= 1.05x)\n" \
    "$(median "$dir/segments.times" 1)" "$(ratio segments compose)" "$(ratio segments compose 2)"
printf "4 x 720x1280 with a looped soundtrack:  %.2f s wall; to none: wall %s, CPU %s (target <= 1.05x)\n" \
    "$(median "$dir/music.times" 1)" "$(ratio music compose)" "$(ratio music compose 2)"
