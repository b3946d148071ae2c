# Baseline shape: plain H.264 in MP4, 2 s at 25 fps, keyframe every second (the reference the others differ from).
ff -f lavfi -i "$(corpus_testsrc)" "${x264[@]}" -pix_fmt yuv420p -g 25 -bf 0 "${bitexact[@]}" "$out/baseline-h264.mp4"
