# Helpers every corpus group uses (sourced by Tools/make-corpus.sh; `$out` is the corpus folder).
# Deterministic for a given ffmpeg build: single-threaded encoders, bit-exact muxing, no creation times or encoder
# strings from the environment.

# Quiet, overwrite, never read stdin.
ff() { ffmpeg -hide_banner -nostdin -loglevel error -y "$@"; }
# Bit-exact container and codec output, no global metadata.
bitexact=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 -map_chapters -1)

# Encoders, single-threaded so the bytes do not depend on the machine.
x264=(-c:v libx264 -preset veryfast -crf 30 -threads 1 -x264-params log-level=error)
x265=(-c:v libx265 -preset veryfast -crf 32 -threads 1 -x265-params log-level=error:pools=none:frame-threads=1)

# A synthetic picture with detail, colour and a moving part: `testsrc2` at SIZE, RATE, DURATION seconds.
corpus_testsrc() { echo "testsrc2=size=${1:-320x180}:rate=${2:-25}:duration=${3:-2}"; }
