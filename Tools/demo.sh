#!/usr/bin/env bash
# The main job's demo: installs what is missing, builds, and describes every fixture video with the
# Thumbnails module (container, codec, size, pixel aspect, rotation, rate, duration; typed errors for
# the broken ones). The canvas-sim demo replaces this once the board and the CLI land.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
swift build --product media-info
bin=$(swift build --show-bin-path)
"$bin/media-info" Fixtures/*.mp4 Fixtures/*.m4a Fixtures/*.webm Fixtures/*.avi Fixtures/*.ts || true
