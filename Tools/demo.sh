#!/usr/bin/env bash
# The main job's demo: installs what is missing, builds canvas-sim and steps a board of four canvases through
# Fixtures/sim/demo.script: takes recorded from real fixture videos (their covers pulled by the Thumbnails service),
# a tap refused while recording, a broken file reported in its step, every step printed. The final board is drawn,
# with the real covers, into .demo/board.png (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
swift build --product canvas-sim
bin=$(swift build --show-bin-path)
mkdir -p .demo
"$bin/canvas-sim" --script Fixtures/sim/demo.script --render .demo/board.png
echo
echo "The final board is drawn in $(pwd)/.demo/board.png"
