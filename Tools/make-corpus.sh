#!/usr/bin/env bash
# Generates the real-world corpus: video shapes found in the wild (HDR, mirrors, B-frames, odd containers, odd file
# names, ...) made deterministically from ffmpeg's synthetic sources into a git-ignored folder, for the tests that
# compare our covers with the ffmpeg CLI's frames (Tests/ThumbnailsTests/RealWorld) and for the benchmarks.
#
#   Tools/make-corpus.sh            # writes into .corpus/ at the package root
#   Tools/make-corpus.sh OUTDIR     # writes somewhere else
#
# Each Tools/Corpus/*.sh is one group of shapes: a bash fragment sourced here with `$out` (the folder to write into)
# and the helpers of Tools/Corpus/common.sh (`ff`, `bitexact`, encoder flag arrays). A group writes only its own
# files. The folder is regenerated only when a fragment (or this script) changed: a stamp holds their checksum, and a
# lock keeps two runs (two test processes) from writing at once. Needs the `ffmpeg` command (Tools/setup.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/.corpus}"
mkdir -p "$out"
command -v ffmpeg >/dev/null || { echo "make-corpus: the ffmpeg command is missing (run Tools/setup.sh)" >&2; exit 1; }

exec 9>"$out/.lock"
flock 9

stamp="$(cat "$0" "$here"/Tools/Corpus/* | sha256sum | cut -d' ' -f1) $(ffmpeg -version | head -n 1)"
if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; then
    exit 0
fi
rm -f "$out/.stamp"

# shellcheck source=Corpus/common.sh
source "$here/Tools/Corpus/common.sh"
for group in "$here"/Tools/Corpus/*.sh; do
    [ "$(basename "$group")" = common.sh ] && continue
    # shellcheck disable=SC1090
    source "$group"
done
printf '%s\n' "$stamp" >"$out/.stamp"
