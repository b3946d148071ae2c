# Codecs and pixel formats: odd sizes, 4:2:2 and 4:4:4, 10-bit, alpha, AV1, MPEG-4 part 2, VP8, MJPEG, GIF.
fsrc="$(corpus_testsrc 320x180 25 1)"
# Intra-only codecs (ProRes, MJPEG) are big per frame: 0.4 s of them.
isrc="$(corpus_testsrc 320x180 25 0.4)"
ff -f lavfi -i "$fsrc,scale=321:241,setsar=1" "${x264[@]}" -pix_fmt yuv444p -g 25 "${bitexact[@]}" "$out/rw-odd-444.mp4"
ff -f lavfi -i "$fsrc,scale=322:241,setsar=1" "${x264[@]}" -pix_fmt yuv422p -g 25 "${bitexact[@]}" "$out/rw-odd-422.mkv"
ff -f lavfi -i "$fsrc" "${x264[@]}" -pix_fmt yuv422p10le -g 25 "${bitexact[@]}" "$out/rw-h264-422-10bit.mp4"
ff -f lavfi -i "$fsrc" "${x264[@]}" -pix_fmt yuv444p -g 25 "${bitexact[@]}" "$out/rw-h264-444.mp4"
ff -f lavfi -i "$fsrc" "${x264[@]}" -pix_fmt yuv420p10le -g 25 "${bitexact[@]}" "$out/rw-h264-10bit.mp4"
ff -f lavfi -i "$fsrc" "${x265[@]}" -pix_fmt yuv420p10le "${bitexact[@]}" "$out/rw-hevc-10bit.mp4"
ff -f lavfi -i "$isrc" -c:v prores_ks -profile:v 2 -pix_fmt yuv422p10le -threads 1 "${bitexact[@]}" \
    "$out/rw-prores-422.mov"
# Alpha: half-transparent testsrc2 in ProRes 4444 and in VP9 (WebM keeps the alpha plane as side data).
alpha="$isrc,format=rgba,colorchannelmixer=aa=0.5"
ff -f lavfi -i "$alpha" -c:v prores_ks -profile:v 4444 -pix_fmt yuva444p10le -threads 1 "${bitexact[@]}" \
    "$out/rw-alpha-prores4444.mov"
ff -f lavfi -i "$alpha" -c:v libvpx-vp9 -pix_fmt yuva420p -deadline realtime -cpu-used 8 -b:v 300k -g 25 -threads 1 \
    "${bitexact[@]}" "$out/rw-alpha-vp9.webm"
ff -f lavfi -i "$fsrc" -c:v libaom-av1 -cpu-used 8 -usage realtime -crf 40 -g 25 -threads 1 -row-mt 0 \
    "${bitexact[@]}" "$out/rw-av1.mp4"
ff -f lavfi -i "$fsrc" -c:v mpeg4 -q:v 4 -g 25 -threads 1 "${bitexact[@]}" "$out/rw-mpeg4.mp4"
ff -f lavfi -i "$fsrc" -c:v libvpx -deadline realtime -cpu-used 8 -b:v 300k -g 25 -threads 1 "${bitexact[@]}" \
    "$out/rw-vp8.webm"
ff -f lavfi -i "$isrc" -c:v mjpeg -q:v 4 -pix_fmt yuvj422p -threads 1 "${bitexact[@]}" "$out/rw-mjpeg.avi"
ff -f lavfi -i "$(corpus_testsrc 160x90 10 1),split[a][b];[a]palettegen=max_colors=64[p];[b][p]paletteuse=dither=none" \
    "${bitexact[@]}" "$out/rw-animated.gif"
