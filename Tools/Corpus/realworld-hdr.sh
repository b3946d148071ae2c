# HDR: PQ (HDR10) and HLG, BT.2020, 10-bit HEVC, as phones record them, made from one SDR BT.709 picture that is kept
# beside them (rw-hdr-source-sdr.mp4), so a tone-mapped cover can be measured against the picture it was mastered
# from. zscale does the conversion: SDR white (100 nits) to linear light, BT.709 primaries to BT.2020, then the PQ or
# HLG transfer (zimg needs every input and output property named); the stream is tagged as HDR10 / HLG are.
# The SDR picture: testsrc2 converted to limited-range BT.709 4:2:0 and tagged so, for the SDR file and the HDR chain.
hdr_src="$(corpus_testsrc 320x180 25 1),scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"
hdr_src="$hdr_src,setparams=color_primaries=bt709:color_trc=bt709:colorspace=bt709:range=tv"
ff -f lavfi -i "$hdr_src" "${x265[@]}" -pix_fmt yuv420p -x265-params \
    log-level=error:pools=none:frame-threads=1:keyint=25:bframes=0:colorprim=bt709:transfer=bt709:colormatrix=bt709 \
    -color_primaries bt709 -color_trc bt709 -colorspace bt709 -tag:v hvc1 "${bitexact[@]}" "$out/rw-hdr-source-sdr.mp4"
hdr_chain='zscale=tin=bt709:min=bt709:pin=bt709:rin=limited:t=linear:m=bt709:p=bt709:npl=100,format=gbrpf32le'
ff -f lavfi -i "$hdr_src" -vf "$hdr_chain,zscale=p=2020:t=smpte2084:m=2020_ncl:r=limited:npl=100,format=yuv420p10le" \
    "${x265[@]}" -x265-params \
    log-level=error:pools=none:frame-threads=1:keyint=25:bframes=0:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:hdr10=1:master-display=G\(13250,34500\)B\(7500,3000\)R\(34000,16000\)WP\(15635,16450\)L\(10000000,1\):max-cll=1000,400 \
    -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -tag:v hvc1 "${bitexact[@]}" "$out/rw-hdr-pq.mp4"
ff -f lavfi -i "$hdr_src" -vf "$hdr_chain,zscale=p=2020:t=arib-std-b67:m=2020_ncl:r=limited:npl=100,format=yuv420p10le" \
    "${x265[@]}" -x265-params \
    log-level=error:pools=none:frame-threads=1:keyint=25:bframes=0:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc \
    -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -tag:v hvc1 "${bitexact[@]}" "$out/rw-hdr-hlg.mp4"
