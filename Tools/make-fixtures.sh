#!/usr/bin/env bash
# Regenerates Fixtures/ (the small committed test videos) from ffmpeg's synthetic sources
# (testsrc2, color, sine), so anyone can rebuild them and nobody has to trust a binary blob.
#
#   Tools/make-fixtures.sh            # writes into Fixtures/ next to this script's package
#   Tools/make-fixtures.sh OUTDIR     # writes somewhere else (used to check determinism)
#
# Deterministic for a given ffmpeg build: single-threaded encoders, bit-exact muxing, no
# creation times or encoder strings from the environment. Fixtures/README.md says what each
# file claims; Tests/ThumbnailsTests checks those claims. Needs the `ffmpeg` command
# (Tools/setup.sh installs it). Keep every clip tiny: the whole folder must stay under 3 MB.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/Fixtures}"
mkdir -p "$out"

command -v ffmpeg >/dev/null || { echo "make-fixtures: the ffmpeg command is missing (run Tools/setup.sh)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Common flags: quiet, overwrite, bit-exact container and codec output, no global metadata.
ff() { ffmpeg -hide_banner -nostdin -loglevel error -y "$@"; }
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 -map_chapters -1)

size=320x180
rate=25
x264=(-c:v libx264 -preset veryfast -tune zerolatency -crf 32 -threads 1 -pix_fmt yuv420p -g 25 -x264-params log-level=error)
x265=(-c:v libx265 -preset veryfast -crf 34 -threads 1 -x265-params log-level=error:pools=none:frame-threads=1:keyint=25)
vp9=(-c:v libvpx-vp9 -deadline good -cpu-used 8 -crf 45 -b:v 0 -threads 1 -row-mt 0 -g 25)
aac=(-c:a aac -b:a 32k -ac 1 -ar 22050)

testsrc() { echo "testsrc2=size=${1:-$size}:rate=${2:-$rate}:duration=${3:-2}"; }
sine() { echo "sine=frequency=440:sample_rate=22050:duration=${1:-2}"; }

# --- one clip per codec and container -----------------------------------------------------
# H.264 in MP4 with an AAC track, so "the best video stream" is picked among two streams.
ff -f lavfi -i "$(testsrc)" -f lavfi -i "$(sine)" "${x264[@]}" "${aac[@]}" "${bitexact[@]}" \
    -shortest "$out/h264.mp4"
# HEVC in MP4, tagged hvc1 (what Apple players require).
ff -f lavfi -i "$(testsrc)" "${x265[@]}" -pix_fmt yuv420p -tag:v hvc1 "${bitexact[@]}" "$out/hevc.mp4"
# VP9 in WebM.
ff -f lavfi -i "$(testsrc)" "${vp9[@]}" -pix_fmt yuv420p "${bitexact[@]}" "$out/vp9.webm"
# MPEG-4 Part 2 in AVI.
ff -f lavfi -i "$(testsrc)" -c:v mpeg4 -q:v 12 -threads 1 -g 25 "${bitexact[@]}" "$out/mpeg4.avi"

# --- display rotation -----------------------------------------------------------------------
# Debian's ffmpeg 5.1 has no -display_rotation: encode once, then remux with the legacy
# `rotate` tag, which the MP4 muxer turns into a display matrix. Each file is named by the
# angle FFmpeg then reports for its display matrix (av_display_rotation_get, what ffprobe
# prints: counterclockwise degrees), measured with ffmpeg 5.1:
#   rotate=-90 -> -90    rotate=180 -> -180 (= 180)    rotate=90 -> 90
ff -f lavfi -i "$(testsrc)" "${x264[@]}" "${bitexact[@]}" "$work/upright.mp4"
ff -i "$work/upright.mp4" -c copy "${bitexact[@]}" -metadata:s:v:0 rotate=-90 "$out/rotation-minus90.mp4"
ff -i "$work/upright.mp4" -c copy "${bitexact[@]}" -metadata:s:v:0 rotate=180 "$out/rotation-180.mp4"
ff -i "$work/upright.mp4" -c copy "${bitexact[@]}" -metadata:s:v:0 rotate=90 "$out/rotation-90.mp4"

# --- content and timing cases ---------------------------------------------------------------
# One black second, then the test pattern for two more: a cover must get past the black.
ff -f lavfi -i "color=c=black:size=$size:rate=$rate:duration=1" -f lavfi -i "$(testsrc)" \
    -filter_complex '[0:v][1:v]concat=n=2:v=1:a=0[v]' -map '[v]' "${x264[@]}" "${bitexact[@]}" \
    "$out/black-first-second.mp4"
# A single frame: decoders must be flushed to get it out.
ff -f lavfi -i "$(testsrc)" -frames:v 1 "${x264[@]}" "${bitexact[@]}" "$out/one-frame.mp4"
# 10-bit 4:2:0 HEVC: converting it naively gives a green tint.
ff -f lavfi -i "$(testsrc)" "${x265[@]}" -pix_fmt yuv420p10le -tag:v hvc1 "${bitexact[@]}" \
    "$out/hevc-10bit.mp4"
# MPEG-TS whose timestamps start at 10 s (plus the muxer's own 1.4 s delay), not at zero.
ff -f lavfi -i "$(testsrc)" "${x264[@]}" -output_ts_offset 10 "${bitexact[@]}" "$out/offset-timestamps.ts"
# Non-square pixels: 240x180 stored, sample aspect ratio 4:3, so it displays as 320x180.
ff -f lavfi -i "$(testsrc 240x180)" -vf setsar=4/3 "${x264[@]}" "${bitexact[@]}" "$out/anamorphic.mp4"

# --- broken and non-video inputs ------------------------------------------------------------
# Cut in half, index (moov) at the end as the MP4 muxer writes it by default: the index is gone.
ff -f lavfi -i "$(testsrc 320x180 25 3)" "${x264[@]}" "${bitexact[@]}" "$work/index-at-end.mp4"
head -c "$(( $(stat -c %s "$work/index-at-end.mp4") / 2 ))" "$work/index-at-end.mp4" \
    > "$out/truncated-index-at-end.mp4"
# Cut in half, index moved to the front (+faststart): it opens, and describes the full length,
# but the second half of the samples it lists are missing.
ff -f lavfi -i "$(testsrc 320x180 25 3)" "${x264[@]}" "${bitexact[@]}" -movflags +faststart \
    "$work/index-at-front.mp4"
head -c "$(( $(stat -c %s "$work/index-at-front.mp4") / 2 ))" "$work/index-at-front.mp4" \
    > "$out/truncated-index-at-front.mp4"
# Sound only.
ff -f lavfi -i "$(sine)" "${aac[@]}" "${bitexact[@]}" "$out/audio-only.m4a"
# Zero bytes.
: > "$out/empty.mp4"
# Text with a video extension.
printf 'This is a text file, not a video, whatever its name says.\n' > "$out/not-a-video.mp4"

# --- formats a folder walk finds by their contents, whatever their names --------------------
# A raw H.264 elementary stream (Annex B), no container: one-frame.mp4's stream copied out.
ff -i "$out/one-frame.mp4" -c copy -bsf:v h264_mp4toannexb "${bitexact[@]}" -f h264 "$out/one-frame.h264"
# An animated GIF: 64x36, 3 frames at 10 per second.
ff -f lavfi -i "$(testsrc 64x36 10 0.3)" "${bitexact[@]}" "$out/tiny.gif"

du -sh "$out"
