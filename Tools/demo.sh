#!/usr/bin/env bash
# The main job's demo: installs what is missing, builds canvas-sim and steps a board of four canvases through
# Fixtures/sim/demo.script: takes recorded from real fixture videos (their covers pulled by the Thumbnails service),
# a tap refused while recording, a broken file reported in its step, every step printed. The final board is drawn,
# with the real covers, into .demo/board.png, and its takes are composed into one video, .demo/board.mp4 (the
# board's grid, each take from its start on the board's timeline; both git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
swift build --product canvas-sim
bin=$(swift build --show-bin-path)
mkdir -p .demo
"$bin/canvas-sim" --script Fixtures/sim/demo.script --render .demo/board.png --compose .demo/board.mp4
echo
echo "The final board is drawn in $(pwd)/.demo/board.png, its takes composed in $(pwd)/.demo/board.mp4"
