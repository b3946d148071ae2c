# Untrusted uploads: playlists, manifests and scripts named like videos that would make FFmpeg open other files (a
# secret beside them, another upload, a text file), a subtitle file, and a header declaring a 16000x16000 frame. Each
# must be refused (Docs/Thumbnails.md, "Untrusted input"); Tools/check-opens.sh runs covers of them under strace.
# Written into $out/untrusted/ so no other shape's reader sees them.
u="$out/untrusted"
mkdir -p "$u"
ff -f lavfi -i "$(corpus_testsrc)" "${x264[@]}" -pix_fmt yuv420p -g 25 -bf 0 "${bitexact[@]}" "$u/other-upload.mp4"
ff -i "$u/other-upload.mp4" -c copy -bsf:v h264_mp4toannexb -f mpegts "$u/secret.ts"
printf 'the secret notes of another user\n' >"$u/notes.txt"
hls() { printf '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n%s\n#EXT-X-ENDLIST\n' "$1"; }
hls "$u/secret.ts" >"$u/hls-absolute.mp4"
hls "file:$u/secret.ts" >"$u/hls-file-url.mp4"
hls "secret.ts" >"$u/hls-sibling.avi"
printf '#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:10\n#EXT-X-MAP:URI="other-upload.mp4"\n#EXTINF:10,\nother-upload.mp4\n#EXT-X-ENDLIST\n' \
    >"$u/hls-map.mp4"
printf '<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT1S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">\n<BaseURL>file:%s/</BaseURL>\n<Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="1000" codecs="avc1.64001f" width="320" height="180"><BaseURL>other-upload.mp4</BaseURL></Representation></AdaptationSet></Period></MPD>\n' \
    "$u" >"$u/dash-baseurl.mp4"
printf 'ffconcat version 1.0\nfile notes.txt\n' >"$u/concat-text.mp4"
printf 'ffconcat version 1.0\nfile other-upload.mp4\n' >"$u/concat-sibling.mp4"
printf '1\n00:00:00,000 --> 00:00:02,000\nthe secret notes of another user\n\n' >"$u/subtitles.mp4"
{ printf 'YUV4MPEG2 W16000 H16000 F25:1 Ip A1:1 C420jpeg\nFRAME\n'; head -c 4096 /dev/zero; } >"$u/huge-frame.mp4"
