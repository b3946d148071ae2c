# Timestamps and keyframes: B-frames, variable frame rate, AVI and MPEG-PS (no pts on every packet), several keyframes
# per second (MPEG-2, WMV), interlaced H.264 in MPEG-TS, a black first second for skip-dark.
bframes=(-bf 3 -g 25 -keyint_min 25 -sc_threshold 0)
# Variable frame rate with B-frames: a 30 fps source with two frames of every five dropped (gaps of 1/30 and 3/30 s),
# so no single frame duration is right.
ff -f lavfi -i "$(corpus_testsrc 320x180 30 2),select='lt(mod(n\,5)\,3)'" -fps_mode vfr "${x264[@]}" -pix_fmt yuv420p \
    "${bframes[@]}" "${bitexact[@]}" "$out/rw-vfr-bframes.mp4"
# Black first second, then the picture: MP4 and MOV with B-frames (skip-dark's keyframe times).
dark='color=c=black:s=320x180:r=25:d=1[black];testsrc2=size=320x180:rate=25:duration=1[pattern];[black][pattern]concat=n=2:v=1:a=0'
ff -f lavfi -i "$dark" "${x264[@]}" -pix_fmt yuv420p "${bframes[@]}" "${bitexact[@]}" "$out/rw-dark-bframes.mp4"
ff -f lavfi -i "$dark" "${x264[@]}" -pix_fmt yuv420p "${bframes[@]}" "${bitexact[@]}" "$out/rw-dark-bframes.mov"
# AVI with B-frames: H.264 and MPEG-4 part 2 (packed B-frames, as DivX/Xvid wrote them).
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" "${x264[@]}" -pix_fmt yuv420p "${bframes[@]}" "${bitexact[@]}" \
    "$out/rw-bframes-h264.avi"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" -c:v mpeg4 -q:v 4 -bf 2 -g 25 -threads 1 "${bitexact[@]}" \
    "$out/rw-bframes-mpeg4.avi"
# Several keyframes a second (every 10 frames, 0.4 s) in MPEG-2 program and transport streams and in WMV.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" -c:v mpeg2video -q:v 6 -bf 2 -g 10 -threads 1 "${bitexact[@]}" \
    -f vob "$out/rw-mpeg2.mpg"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" -c:v mpeg2video -q:v 6 -bf 2 -g 10 -threads 1 "${bitexact[@]}" \
    "$out/rw-mpeg2.ts"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" -c:v wmv2 -q:v 6 -g 10 -threads 1 "${bitexact[@]}" "$out/rw-wmv2.wmv"
# Interlaced H.264 (top field first, PAFF/MBAFF-coded) in MPEG-TS: 50 progressive frames a second woven into 25
# interlaced ones, so the fields differ and combing shows; a keyframe every 0.4 s.
ff -f lavfi -i "$(corpus_testsrc 320x240 50 2),tinterlace=mode=interleave_top,setfield=tff" -c:v libx264 \
    -preset veryfast -crf 30 -threads 1 -flags +ildct+ilme -x264-params log-level=error:tff=1 -pix_fmt yuv420p \
    -g 10 -bf 2 "${bitexact[@]}" "$out/rw-interlaced-h264.ts"
