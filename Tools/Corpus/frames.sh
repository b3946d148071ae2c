# Frame choice: shapes where "which frame, and what time" is easy to get wrong (B-frames with variable frame rate,
# AVI and MPEG-PS timestamps, demuxers whose seek lands early, inputs that cannot seek, no duration). Every name starts
# with `frames-`; Tests/ThumbnailsTests/FrameChoiceRealWorldTests.swift compares our choice with ffprobe's frame list.

# Variable frame rate with B-frames in MP4, no packet durations: frames in pairs 20 ms apart, pairs 80 ms apart (the
# average, 40 ms, is wrong for every frame), 2 s.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" -vf "settb=1/1000,setpts='(floor(N/2)*0.08+mod(N,2)*0.02)/TB'" \
    -fps_mode vfr -enc_time_base 1:1000 "${x264[@]}" -pix_fmt yuv420p -bf 3 -g 20 -keyint_min 20 -sc_threshold 0 \
    -video_track_timescale 1000 "${bitexact[@]}" "$out/frames-vfr-bframes.mp4"

# One black second, then the pattern, with B-frames and a keyframe every second, in MP4 and MOV (skip-dark steps over
# the black keyframe).
for ext in mp4 mov; do
    ff -f lavfi -i "color=black:size=320x180:rate=25:duration=1" -f lavfi -i "$(corpus_testsrc 320x180 25 2)" \
        -filter_complex "[0:v][1:v]concat=n=2:v=1[v]" -map "[v]" "${x264[@]}" -pix_fmt yuv420p -bf 3 -g 25 \
        -keyint_min 25 -sc_threshold 0 "${bitexact[@]}" "$out/frames-bframes-dark.$ext"
done

# MPEG-4 Part 2 with B-frames in AVI (no presentation timestamps in the container), a keyframe every second, 3 s.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 3)" -c:v mpeg4 -q:v 8 -bf 2 -g 25 -threads 1 "${bitexact[@]}" \
    "$out/frames-bframes.avi"

# Demuxers that seek by bisection or a coarse index: MPEG-2 in MPEG-PS and MPEG-TS, WMV in ASF. A keyframe every
# 12 frames (0.48 s), 6 s.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 6)" -c:v mpeg2video -q:v 12 -bf 2 -g 12 -threads 1 "${bitexact[@]}" \
    "$out/frames-mpeg2.mpg"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 6)" -c:v mpeg2video -q:v 12 -bf 2 -g 12 -threads 1 "${bitexact[@]}" \
    "$out/frames-mpeg2.ts"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 6)" -c:v wmv2 -q:v 12 -g 12 -threads 1 "${bitexact[@]}" \
    "$out/frames-wmv2.wmv"

# Interlaced H.264 (MBAFF, top field first) in MPEG-TS, a keyframe every second, 2.5 s: a time after the last
# keyframe.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2.5)" -vf "setfield=tff" "${x264[@]}" -pix_fmt yuv420p -flags +ildct+ilme \
    -x264-params log-level=error:interlaced=1:tff=1 -bf 2 -g 25 -keyint_min 25 -sc_threshold 0 "${bitexact[@]}" \
    "$out/frames-interlaced-h264.ts"

# Inputs that cannot seek: raw H.264 and HEVC elementary streams (a keyframe every second, 3 s), a still JPEG and PNG,
# an MP3 whose only picture is its cover art.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 3)" "${x264[@]}" -pix_fmt yuv420p -g 25 -keyint_min 25 -sc_threshold 0 \
    "${bitexact[@]}" -f h264 "$out/frames-raw.h264"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 3)" "${x265[@]}" -x265-params log-level=error:pools=none:frame-threads=1:keyint=25:min-keyint=25:scenecut=0 \
    -pix_fmt yuv420p "${bitexact[@]}" -f hevc "$out/frames-raw.hevc"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" -frames:v 1 -q:v 4 "${bitexact[@]}" "$out/frames-still.jpg"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" -frames:v 1 "${bitexact[@]}" "$out/frames-still.png"
ff -f lavfi -i "sine=frequency=440:sample_rate=22050:duration=3" -i "$out/frames-still.jpg" -map 0:a -map 1:v \
    -c:a libmp3lame -b:a 32k -c:v copy -disposition:v attached_pic -id3v2_version 3 "${bitexact[@]}" \
    "$out/frames-cover-art.mp3"

# Matroska written to a pipe (as browser recorders and OBS write it): no duration, no cues. A keyframe every second,
# 3 s.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 3)" "${x264[@]}" -pix_fmt yuv420p -g 25 -keyint_min 25 -sc_threshold 0 \
    "${bitexact[@]}" -f matroska - >"$out/frames-pipe.mkv"
