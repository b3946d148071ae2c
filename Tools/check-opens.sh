#!/usr/bin/env bash
# Proves that a cover reads only the file it is given: runs canvas-thumb under `strace -f -e trace=openat,open,connect`
# on each upload (single runs, then one batch of them all in worker processes) and fails naming any file opened
# besides the input and any connection made.
#
#   Tools/check-opens.sh                      the untrusted shapes of Tools/Corpus/untrusted.sh and the fixture videos
#   Tools/check-opens.sh --tool PATH FILE...  another canvas-thumb, other uploads
#
# The rule, per traced run: opens before the first open of an input are the process starting (the dynamic loader,
# the C and Swift runtimes, locale data) and are not considered. From the first open of an input on, an open is
# expected when it is of an input of the run, of the output folder (the cover's temporary file), or of a system path
# that holds no user data: /proc and /sys (the CPU count, memory limits), /dev/null and /dev/urandom, the shared
# libraries and their caches (/usr/lib, /lib, /etc/ld.so.cache, gconv and locale data). Anything else (another
# upload, a text file, a secret beside the input, any path named by a playlist) is a violation, as is any connect.
# Exit 0 when every run is clean, 1 naming each violation, 2 for usage or a missing strace (Tools/setup.sh installs
# it).
set -euo pipefail
cd "$(dirname "$0")/.."

tool=.build/debug/canvas-thumb
if [ "${1:-}" = "--tool" ]; then
    tool="$2"
    shift 2
fi
command -v strace >/dev/null || { echo "check-opens: strace is missing (run Tools/setup.sh)" >&2; exit 2; }
[ -x "$tool" ] || { echo "check-opens: no canvas-thumb at $tool (swift build --product canvas-thumb)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
uploads=("$@")
if [ "${#uploads[@]}" -eq 0 ]; then
    out="$work/corpus"
    mkdir -p "$out"
    # shellcheck source=Corpus/common.sh
    source Tools/Corpus/common.sh
    # shellcheck source=Corpus/untrusted.sh
    source Tools/Corpus/untrusted.sh
    for name in hls-absolute.mp4 hls-file-url.mp4 hls-sibling.avi hls-map.mp4 dash-baseurl.mp4 concat-text.mp4 \
        concat-sibling.mp4 subtitles.mp4 huge-frame.mp4 other-upload.mp4; do
        uploads+=("$out/untrusted/$name")
    done
    for fixture in Fixtures/*.mp4 Fixtures/*.webm Fixtures/*.avi Fixtures/*.ts Fixtures/*.m4a; do
        uploads+=("$PWD/$fixture")
    done
fi

violations=0
# check LOG OUTDIR INPUT...: the rule above over one strace log.
check() {
    local log="$1" outdir="$2"
    shift 2
    python3 - "$log" "$outdir" "$@" <<'PY' || violations=$((violations + 1))
import os, re, sys
log, outdir, inputs = sys.argv[1], os.path.realpath(sys.argv[2]), [os.path.realpath(p) for p in sys.argv[3:]]
system = ("/proc/", "/sys/", "/dev/null", "/dev/urandom", "/usr/lib/", "/lib/", "/lib64/", "/usr/lib64/",
          "/etc/ld.so.cache", "/usr/share/locale/", "/usr/lib/locale/", "/etc/localtime", "/usr/share/zoneinfo/")
started, bad = False, []
for line in open(log, errors="replace"):
    if re.search(r"\bconnect\(", line):
        bad.append("connect: " + line.strip())
        continue
    m = re.search(r'\bopen(?:at)?\((?:AT_FDCWD|\d+), "((?:[^"\\]|\\.)*)"', line) or re.search(r'\bopen\("((?:[^"\\]|\\.)*)"', line)
    if not m:
        continue
    path = m.group(1).encode().decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
    real = os.path.realpath(path)
    if real in inputs:
        started = True
        continue
    if path.startswith(system) or real.startswith(system):
        continue
    if not started:
        continue
    if os.path.dirname(real) == outdir or real == outdir:
        continue
    bad.append("opened " + path)
for entry in bad:
    print("check-opens: %s: %s" % (" ".join(sys.argv[3:]), entry), file=sys.stderr)
# A run that never opened an input refused it before FFmpeg (an empty file: one stat): nothing else may be opened.
sys.exit(1 if bad else 0)
PY
}

for upload in "${uploads[@]}"; do
    mkdir -p "$work/out"
    strace -f -qq -s 4096 -e trace=openat,open,connect -o "$work/log" \
        "$tool" "$upload" -o "$work/out/cover.png" >/dev/null 2>&1 || true
    check "$work/log" "$work/out" "$upload"
    rm -rf "$work/out"
done
mkdir -p "$work/out"
strace -f -qq -s 4096 -e trace=openat,open,connect -o "$work/log" \
    "$tool" "${uploads[@]}" --output-dir "$work/out" --jobs 2 >/dev/null 2>&1 || true
check "$work/log" "$work/out" "${uploads[@]}"

if [ "$violations" -gt 0 ]; then
    echo "check-opens: $violations of $((${#uploads[@]} + 1)) runs opened something besides their inputs" >&2
    exit 1
fi
echo "check-opens: ${#uploads[@]} uploads, single and batch: only the inputs were opened"
