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

# What the run needs (hyperfine, GNU time, gcc, ...): installed when missing (as root), as the other benchmarks do.
bash Tools/setup.sh --bench
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

# The picture shapes, 1920x1080, 1 s (only the first frame is taken), each beside a plain twin whose decoding costs
# the same, so the ratio is what the shape adds: HDR 10-bit HEVC (PQ, HLG; BT.2020, made from testsrc2 as
# Tools/Corpus/picture.sh does) and the same bitstream retagged as SDR BT.709 (hevc_metadata; HLG's
# alternative-transfer SEI removed too); interlaced H.264 (top field first, woven from 50 pictures a second) and
# the same woven pictures coded progressive; H.264 with the transposing mirror matrix (the costliest copy) and
# the same file upright.
hevc10=(-c:v libx265 -preset veryfast -crf 20 -g 25 -x265-params log-level=error -tag:v hvc1)
as_sdr=(-color_primaries bt709 -color_trc bt709 -colorspace bt709)
if [ ! -s .bench/1080p-h264-woven.mp4 ]; then
    echo "bench-thumbnails: generating the 1080p picture shapes" >&2
    for transfer in smpte2084 arib-std-b67; do
        name=pq; [ "$transfer" = arib-std-b67 ] && name=hlg
        ff -f lavfi -i testsrc2=size=1920x1080:rate=25:duration=1 \
            -vf "format=gbrp,setparams=range=pc:color_primaries=bt709:color_trc=bt709:colorspace=gbr,zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt2020:t=$transfer:m=bt2020nc:r=tv:npl=203,format=yuv420p10le" \
            "${hevc10[@]}" -color_primaries bt2020 -color_trc "$transfer" -colorspace bt2020nc .bench/1080p-hdr-$name.mp4
        ff -i .bench/1080p-hdr-$name.mp4 -c copy "${as_sdr[@]}" \
            -bsf:v "filter_units=remove_types=39,hevc_metadata=colour_primaries=1:transfer_characteristics=1:matrix_coefficients=1" \
            .bench/1080p-hdr-$name-as-sdr.mp4
    done
    ff -f lavfi -i testsrc2=size=1920x1080:rate=25:duration=1 -c:v libx264 -preset veryfast -pix_fmt yuv420p \
        .bench/1080p-h264-1s.mp4
    cp .bench/1080p-h264-1s.mp4 .bench/1080p-h264-mirror.mp4
    python3 Tools/Corpus/mp4-matrix.py .bench/1080p-h264-mirror.mp4 0 -1 -1 0
    ff -f lavfi -i testsrc2=size=1920x1080:rate=50:duration=1 -vf "scroll=h=0.002,tinterlace=interleave_top,setfield=tff" \
        -c:v libx264 -preset veryfast -x264-params tff=1 -flags +ildct+ilme -pix_fmt yuv420p .bench/1080i-h264.mp4
    ff -f lavfi -i testsrc2=size=1920x1080:rate=50:duration=1 -vf "scroll=h=0.002,tinterlace=interleave_top" \
        -c:v libx264 -preset veryfast -pix_fmt yuv420p .bench/1080p-h264-woven.mp4
fi

# shellcheck disable=SC2046
cc -O2 Tools/Floor/cover_floor.c $(pkg-config --cflags --libs libavformat libavcodec libswscale libavutil) \
    -o .bench/cover_floor
# THUMBNAILS_BENCHMARK_HOOKS adds the forced stream probe (--probe) to Thumbnails; its own scratch path keeps the
# other release builds (canvas-thumb's benchmark, the soak) from being rebuilt each time.
bench_build=(-c release --scratch-path .build/benchmark -Xswiftc -DTHUMBNAILS_BENCHMARK_HOOKS)
swift build "${bench_build[@]}" --product ThumbnailBenchmark >&2
swift_bench="$(swift build "${bench_build[@]}" --show-bin-path)/ThumbnailBenchmark"
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

# HDR, deinterlacing and orientation against a plain cover of the same size and bitstream (first frame, 320x320
# box, PNG written), the plain one and the shaped one taking turns, best of 5 medians of CPU time per cover (they
# differ by a millisecond or two, less than other work on a shared machine moves the wall clock).
echo
echo "Picture shapes against a plain cover of the same size (1080p first frame, 320x320 box, PNG written, Thumbnails,"
echo "CPU time per cover; $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores):"
echo
echo "| shape | plain (ms) | shaped (ms) | ratio |"
echo "| --- | ---: | ---: | ---: |"
shape() { # LABEL PLAIN SHAPED
    local plain="" shaped="" round
    for round in $(seq 5); do
        plain=$(smaller "$("$swift_bench" "$2" .bench/swift.png 320 -1 "$loops_1080" --cpu)" "$plain")
        shaped=$(smaller "$("$swift_bench" "$3" .bench/swift.png 320 -1 "$loops_1080" --cpu)" "$shaped")
    done
    echo "| $1 | $plain | $shaped | $(ratio "$shaped" "$plain") |"
}
shape "HDR PQ, tone-mapped (HEVC 10-bit)" .bench/1080p-hdr-pq-as-sdr.mp4 .bench/1080p-hdr-pq.mp4
shape "HDR HLG, tone-mapped (HEVC 10-bit)" .bench/1080p-hdr-hlg-as-sdr.mp4 .bench/1080p-hdr-hlg.mp4
shape "interlaced H.264, first field scaled" .bench/1080p-h264-woven.mp4 .bench/1080i-h264.mp4
shape "mirrored transpose (display matrix)" .bench/1080p-h264-1s.mp4 .bench/1080p-h264-mirror.mp4

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
