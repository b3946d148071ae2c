# How the picture looks: the eight display-matrix orientations (mirrors included), a Matroska pixel aspect ratio
# that differs from the bitstream's, HDR (PQ and HLG, BT.2020, 10-bit HEVC) made from an SDR picture, and
# interlaced H.264 with motion (fields from two moments, both field orders). Files are named picture-*.

# Orientations: one H.264 MP4 whose track header matrix is then rewritten in place by Tools/Corpus/mp4-matrix.py
# (ffmpeg 5.1 writes only plain rotations, and no mirrors). Each matrix is what QuickTime writes for that orientation: a, b, c, d of the 2x2
# part (row-major, as FFmpeg's display matrix), with the translation that keeps the picture in the positive
# quadrant. The name is the upright cover: mirrored left-right (if -mirror), then turned clockwise.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" "${x264[@]}" -pix_fmt yuv420p -g 25 -bf 0 "${bitexact[@]}" \
    "$out/picture-orient-base.mp4"
while read -r name a b c d; do
    cp "$out/picture-orient-base.mp4" "$out/picture-orient-$name.mp4"
    python3 "$here/Tools/Corpus/mp4-matrix.py" "$out/picture-orient-$name.mp4" "$a" "$b" "$c" "$d"
done <<'LIST'
r0 1 0 0 1
r0-mirror -1 0 0 1
r90 0 1 -1 0
r90-mirror 0 -1 -1 0
r180 -1 0 0 -1
r180-mirror 1 0 0 -1
r270 0 -1 1 0
r270-mirror 0 1 1 0
LIST
rm "$out/picture-orient-base.mp4"

# Matroska's display size says 2:1 pixels (640x240 shown) over a 320x240 H.264 stream whose own VUI says 1:1.
ff -f lavfi -i "$(corpus_testsrc 320x240 25 1)" "${x264[@]}" -pix_fmt yuv420p -g 25 -bf 0 -aspect 8:3 \
    -bsf:v h264_metadata=sample_aspect_ratio=1/1 "${bitexact[@]}" "$out/picture-sar-2to1.mkv"

# HDR from an SDR picture: testsrc2 (RGB, BT.709) to linear light with SDR white at 203 cd/m2 (BT.2408's reference
# white), then BT.2020 primaries and PQ or HLG, 10-bit 4:2:0 HEVC tagged in the VUI and the container. The PQ clip
# states HDR10 metadata (a 1,000 cd/m2 mastering display, MaxCLL 1,000). Its SDR source is testsrc2's own frame.
picture_hdr() { # TRANSFER-NAME ZSCALE-TRANSFER FFMPEG-TRC FILE [x265 params]
    ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" \
        -vf "format=gbrp,setparams=range=pc:color_primaries=bt709:color_trc=bt709:colorspace=gbr,zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt2020:t=$2:m=bt2020nc:r=tv:npl=203,format=yuv420p10le" \
        -c:v libx265 -preset veryfast -crf 20 -threads 1 -g 25 \
        -x265-params "log-level=error:pools=none:frame-threads=1${5:+:$5}" \
        -color_primaries bt2020 -color_trc "$3" -colorspace bt2020nc -color_range tv -tag:v hvc1 "${bitexact[@]}" "$out/$4"
}
picture_hdr pq smpte2084 smpte2084 picture-hdr-pq.mp4 \
    "hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400"
picture_hdr hlg arib-std-b67 arib-std-b67 picture-hdr-hlg.mp4
# The same picture as plain SDR 10-bit HEVC (BT.709): the "plain cover of the same size" HDR covers are measured
# against.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" -vf "format=yuv420p10le" -c:v libx265 -preset veryfast -crf 20 \
    -threads 1 -g 25 -x265-params log-level=error:pools=none:frame-threads=1 \
    -color_primaries bt709 -color_trc bt709 -colorspace bt709 -tag:v hvc1 "${bitexact[@]}" "$out/picture-sdr-hevc10.mp4"

# Interlaced: testsrc2 at 50 pictures a second, scrolling sideways (a combing edge on every vertical line), woven
# two at a time into 25 interlaced frames and coded as interlaced H.264, top field first and bottom field first.
picture_interlaced() { # ORDER(tff|bff) FILE
    local first=interleave_top flag=tff=1
    [ "$1" = bff ] && first=interleave_bottom && flag=bff=1
    ff -f lavfi -i "testsrc2=size=320x240:rate=50:duration=1" \
        -vf "scroll=h=0.01,tinterlace=$first,setfield=$1" -c:v libx264 -preset veryfast -crf 20 -threads 1 \
        -x264-params "log-level=error:$flag" -flags +ildct+ilme -pix_fmt yuv420p -g 25 -bf 0 "${bitexact[@]}" "$out/$2"
}
picture_interlaced tff picture-interlaced-tff.mp4
picture_interlaced bff picture-interlaced-bff.mp4
