# Orientation: all eight display matrices (four rotations, four mirrors) on one 320x180 H.264 clip, so a cover's
# orientation shows in its size (transposed: 180x320) and in where testsrc2's corners end up. The rotations are what
# FFmpeg's muxer writes for a `rotate` tag; the mirrors are what QuickTime's Flip Horizontal/Vertical write, patched
# into the track header by mp4-matrix.py (FFmpeg 5.1 cannot write them). Files are named by the matrix's effect.
ff -f lavfi -i "$(corpus_testsrc 320x180 25 1)" "${x264[@]}" -pix_fmt yuv420p -g 25 -bf 0 "${bitexact[@]}" \
    "$out/rw-matrix-identity.mp4"
# Row-major (a b; c d) as ffprobe prints them.
for shape in "hflip -1 0 0 1" "vflip 1 0 0 -1" "rot180 -1 0 0 -1" "rot90 0 1 -1 0" "rot270 0 -1 1 0" \
    "transpose 0 1 1 0" "transverse 0 -1 -1 0"; do
    read -r name a b c d <<<"$shape"
    cp "$out/rw-matrix-identity.mp4" "$out/rw-matrix-$name.mp4"
    python3 "$here/Tools/Corpus/mp4-matrix.py" "$out/rw-matrix-$name.mp4" "$a" "$b" "$c" "$d"
done
# The same rotation as FFmpeg's muxer writes it from the `rotate` tag (what phones and ffmpeg users produce).
ff -i "$out/rw-matrix-identity.mp4" -c copy "${bitexact[@]}" -metadata:s:v:0 rotate=90 "$out/rw-rotate-tag-90.mp4"
