#!/usr/bin/env bash
# Installs what MultiCanvas needs from Debian, only when it is missing.
#   Tools/setup.sh          build + test needs: FFmpeg dev libraries, pkg-config, the ffmpeg command, python3, strace,
#                           addr2line (binutils)
#   Tools/setup.sh --bench  also the benchmark tools: hyperfine, ffmpegthumbnailer, GNU time, gcc, bc
# Quiet and idempotent when everything is present. As root it runs apt-get; otherwise it prints
# the exact command to run and exits 1.
set -euo pipefail

want_bench=0
for arg in "$@"; do
    case "$arg" in
        --bench) want_bench=1 ;;
        -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
    esac
done

missing=()
# Development packages: present when pkg-config finds the library (pkg-config itself first).
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
for lib in libavformat libavcodec libswscale libswresample libavutil; do
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$lib" 2>/dev/null; then
        missing+=("$lib-dev")
    fi
done
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
# The real-world corpus (Tools/make-corpus.sh) patches display matrices with a python3 script.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# Tools/check-opens.sh traces covers to prove only the input is opened.
command -v strace >/dev/null 2>&1 || missing+=(strace)
# The tap-to-cell path test symbolizes its call stacks with addr2line.
command -v addr2line >/dev/null 2>&1 || missing+=(binutils)
if [ "$want_bench" -eq 1 ]; then
    command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
    command -v ffmpegthumbnailer >/dev/null 2>&1 || missing+=(ffmpegthumbnailer)
    [ -x /usr/bin/time ] || missing+=(time)
    command -v cc >/dev/null 2>&1 || missing+=(gcc)
    command -v bc >/dev/null 2>&1 || missing+=(bc)
fi

[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "setup.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "setup.sh: missing ${missing[*]}; run as root:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi
