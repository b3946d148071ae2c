# Containers and inputs that cannot seek: edit lists, fragmented MP4, the index at the end or the front, raw
# elementary streams, still images, cover art in audio files, Matroska written to a pipe, a container aspect ratio
# over a square-pixel stream, several video streams.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" "${x264[@]}" -pix_fmt yuv420p -bf 3 -g 25 -sc_threshold 0 \
    "${bitexact[@]}" "$out/rw-moov-end.mp4"
ff -i "$out/rw-moov-end.mp4" -c copy -movflags +faststart "${bitexact[@]}" "$out/rw-faststart.mp4"
ff -i "$out/rw-moov-end.mp4" -c copy -movflags frag_keyframe+empty_moov "${bitexact[@]}" "$out/rw-fragmented.mp4"
# Edit lists: an empty edit of 0.5 s before the media (-itsoffset), and a cut that starts between keyframes (stream
# copy from 0.7 s: the packets from the keyframe before are kept and the edit list hides them).
ff -itsoffset 0.5 -i "$out/rw-moov-end.mp4" -c copy "${bitexact[@]}" "$out/rw-editlist-offset.mp4"
ff -ss 0.7 -i "$out/rw-moov-end.mp4" -c copy "${bitexact[@]}" "$out/rw-editlist-cut.mp4"
# Raw elementary streams (no container, no index, no timestamps).
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" "${x264[@]}" -pix_fmt yuv420p -bf 2 -g 25 "${bitexact[@]}" \
    -f h264 "$out/rw-raw.h264"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" "${x265[@]}" -pix_fmt yuv420p "${bitexact[@]}" -f hevc "$out/rw-raw.hevc"
# Still images.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" -frames:v 1 -q:v 3 "${bitexact[@]}" "$out/rw-still.jpg"
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" -frames:v 1 "${bitexact[@]}" "$out/rw-still.png"
# Audio files whose only picture is cover art (an attached picture): MP3 with a JPEG in ID3v2, M4A with a PNG.
ff -f lavfi -i "sine=frequency=440:duration=2" -i "$out/rw-still.jpg" -map 0:a -map 1:v -c:a libmp3lame -b:a 64k \
    -c:v copy -disposition:v:0 attached_pic -id3v2_version 3 "${bitexact[@]}" "$out/rw-cover-art.mp3"
ff -f lavfi -i "sine=frequency=440:duration=2" -i "$out/rw-still.png" -map 0:a -map 1:v -c:a aac -b:a 64k \
    -c:v copy -disposition:v:0 attached_pic "${bitexact[@]}" "$out/rw-cover-art.m4a"
# Matroska written to a pipe, as browser recorders and OBS write it: no duration, no cues.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 2)" "${x264[@]}" -pix_fmt yuv420p -bf 2 -g 25 "${bitexact[@]}" \
    -f matroska pipe: >"$out/rw-pipe.mkv"
# Matroska whose container says 2:1 pixels over an H.264 stream that says 1:1 (FFmpeg uses the container's).
ff -f lavfi -i "$(corpus_testsrc 320x240 25 2)" "${x264[@]}" -pix_fmt yuv420p -g 25 -x264-params log-level=error:sar=1/1 \
    "${bitexact[@]}" "$out/.sar-square.mp4"
ff -i "$out/.sar-square.mp4" -c copy -aspect 8:3 "${bitexact[@]}" "$out/rw-sar-2to1.mkv"
rm -f "$out/.sar-square.mp4"
# Two video streams of different sizes in one file (MP4 and Matroska); which one is the video is FFmpeg's choice.
two='testsrc2=size=320x180:rate=25:duration=2[out0];smptebars=size=160x90:rate=25:duration=2[out1]'
ff -f lavfi -i "$two" -map 0:v:0 -map 0:v:1 "${x264[@]}" -pix_fmt yuv420p -g 25 "${bitexact[@]}" "$out/rw-two-video.mp4"
two_small_first='smptebars=size=160x90:rate=25:duration=2[out0];testsrc2=size=320x180:rate=25:duration=2[out1]'
ff -f lavfi -i "$two_small_first" -map 0:v:0 -map 0:v:1 "${x264[@]}" -pix_fmt yuv420p -g 25 "${bitexact[@]}" \
    "$out/rw-two-video-small-first.mkv"
