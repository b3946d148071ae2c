#!/usr/bin/env bash
# Benchmarks covers: Thumbnails (Tools/ThumbnailBenchmark, release build) side by side with the C
# floor (Tools/Floor/cover_floor.c: the fewest steps a C program on the same FFmpeg libraries takes),
# both warm in one process (median of LOOPS runs), plus peak memory of one 4K cover.
#
#   Tools/bench-thumbnails.sh            # full run: 1080p 30 s and 4K 10 s inputs
#   Tools/bench-thumbnails.sh --quick    # fewer loops (a smoke test of the script)
#
# Inputs are H.264 from testsrc2, generated on demand into the git-ignored .bench/ folder (kept for
# the next run). Prints a Markdown table: the same one Docs/Thumbnails.md shows.
set -euo pipefail
cd "$(dirname "$0")/.."

# Loops per median (at least 2: a single run prints no median). Exact covers decode a whole group
# of pictures (hundreds of milliseconds), so they loop less.
loops_1080=21
loops_4k=7
loops_exact=3
if [ "${1:-}" = "--quick" ]; then loops_1080=3; loops_4k=3; loops_exact=2; fi

for tool in ffmpeg cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "bench-thumbnails: '$tool' is missing (run Tools/setup.sh --bench)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-thumbnails: /usr/bin/time is missing (run Tools/setup.sh --bench)" >&2; exit 1; }

mkdir -p .bench
ff() { ffmpeg -hide_banner -nostdin -loglevel error -y "$@"; }
# x264's defaults (preset medium's GOP of 250, B-frames), as a camera-like file would have.
if [ ! -s .bench/1080p-30s.mp4 ]; then
    echo "bench-thumbnails: generating .bench/1080p-30s.mp4" >&2
    ff -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=30 -c:v libx264 -preset veryfast -pix_fmt yuv420p \
        .bench/1080p-30s.mp4
fi
if [ ! -s .bench/4k-10s.mp4 ]; then
    echo "bench-thumbnails: generating .bench/4k-10s.mp4" >&2
    ff -f lavfi -i testsrc2=size=3840x2160:rate=30:duration=10 -c:v libx264 -preset veryfast -pix_fmt yuv420p \
        .bench/4k-10s.mp4
fi

# shellcheck disable=SC2046
cc -O2 Tools/Floor/cover_floor.c $(pkg-config --cflags --libs libavformat libavcodec libswscale libavutil) \
    -o .bench/cover_floor
swift build -c release --product ThumbnailBenchmark >&2
swift_bench="$(swift build -c release --show-bin-path)/ThumbnailBenchmark"
floor=.bench/cover_floor

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
smaller() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# The machine is shared (other builds run beside the benchmark): each figure is the best of
# ROUNDS medians, the C floor and Thumbnails taking turns, so both see the same background load.
rounds=3

echo "| input | cover | C floor (ms) | Thumbnails (ms) | ratio |"
echo "| --- | --- | ---: | ---: | ---: |"
row() { # NAME FILE LABEL SECONDS LOOPS [exact]
    local name="$1" file="$2" label="$3" seconds="$4" loops="$5" mode="${6:-}"
    local c="" s="" round
    for round in $(seq "$rounds"); do
        c=$(smaller "$("$floor" "$file" .bench/floor.png 320 "$seconds" "$loops" $mode)" "$c")
        s=$(smaller "$("$swift_bench" "$file" .bench/swift.png 320 "$seconds" "$loops" $mode)" "$s")
    done
    echo "| $name | $label | $c | $s | $(ratio "$s" "$c") |"
}
row "1080p 30 s" .bench/1080p-30s.mp4 "first frame" -1 "$loops_1080"
row "1080p 30 s" .bench/1080p-30s.mp4 "50% keyframe" 15 "$loops_1080"
row "1080p 30 s" .bench/1080p-30s.mp4 "50% exact" 15 "$loops_exact" exact
row "4K 10 s" .bench/4k-10s.mp4 "first frame" -1 "$loops_4k"
row "4K 10 s" .bench/4k-10s.mp4 "50% keyframe" 5 "$loops_4k"
row "4K 10 s" .bench/4k-10s.mp4 "50% exact" 5 "$loops_exact" exact

echo
echo "Skipping the stream probe (1080p first frame, Thumbnails):"
echo
echo "| probe | ms |"
echo "| --- | ---: |"
skipped="" forced=""
for round in $(seq "$rounds"); do
    skipped=$(smaller "$("$swift_bench" .bench/1080p-30s.mp4 .bench/swift.png 320 -1 "$loops_1080")" "$skipped")
    forced=$(smaller "$("$swift_bench" .bench/1080p-30s.mp4 .bench/swift.png 320 -1 "$loops_1080" --probe)" "$forced")
done
echo "| skipped when the header is complete (default) | $skipped |"
echo "| forced (avformat_find_stream_info) | $forced |"

# Skip-dark's cost against a plain cover of the same file: the plain first frame is black, whose
# PNG is far cheaper to encode than any picture, so the comparison is made on the decoded, scaled
# cover (--no-write) as well as on the whole cover, and against the plain cover of the picture at 1 s.
# These covers take well under a millisecond, so glibc's malloc heuristics (which may map, zero and
# unmap the decoder's large allocations on every cover, about 0.6 ms, depending on allocation order)
# would decide the ratio: these runs fix the thresholds so only the work differs.
black=Fixtures/black-first-second.mp4
export MALLOC_MMAP_THRESHOLD_=268435456 MALLOC_TRIM_THRESHOLD_=268435456
plain="" skipping="" picture="" plain_decode="" skipping_decode=""
for round in $(seq "$rounds"); do
    plain=$(smaller "$("$swift_bench" "$black" .bench/swift.png 320 -1 101)" "$plain")
    skipping=$(smaller "$("$swift_bench" "$black" .bench/swift.png 320 -1 101 --skip-dark)" "$skipping")
    picture=$(smaller "$("$swift_bench" "$black" .bench/swift.png 320 1 101)" "$picture")
    plain_decode=$(smaller "$("$swift_bench" "$black" .bench/swift.png 320 -1 101 --no-write)" "$plain_decode")
    skipping_decode=$(smaller "$("$swift_bench" "$black" .bench/swift.png 320 -1 101 --skip-dark --no-write)" "$skipping_decode")
done
echo
echo "Skipping the black first second (Fixtures/black-first-second.mp4, 320x180, Thumbnails):"
echo
echo "| cover | decoded and scaled (ms) | ratio | with PNG written (ms) | ratio |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| plain first frame (black) | $plain_decode | 1.00 | $plain | 1.00 |"
echo "| skip dark frames (the pattern at 1 s) | $skipping_decode | $(ratio "$skipping_decode" "$plain_decode") | $skipping | $(ratio "$skipping" "$plain") |"
echo "| plain cover at 1 s (the same picture, for reference) | | | $picture | $(ratio "$picture" "$plain") |"
unset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_

echo
echo "A cache hit (CoverCache.cover(for:options:): one stat and a locked lookup), what a grid pays per display:"
echo
echo "| lookup | µs |"
echo "| --- | ---: |"
echo "| hit | $("$swift_bench" --cache-hits .bench/1080p-30s.mp4) |"

peak() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }'; }
echo
echo "Peak memory of one 4K first-frame cover (whole process, maximum resident set size):"
echo
echo "| program | peak RSS (MB) |"
echo "| --- | ---: |"
c_kb=$(peak "$floor" .bench/4k-10s.mp4 .bench/floor.png 320 -1 1)
s_kb=$(peak "$swift_bench" .bench/4k-10s.mp4 .bench/swift.png 320 -1 1)
echo "| C floor | $(awk -v k="$c_kb" 'BEGIN { printf "%.1f", k / 1024 }') |"
echo "| Thumbnails | $(awk -v k="$s_kb" 'BEGIN { printf "%.1f", k / 1024 }') |"
