#!/usr/bin/env bash
# A long bounded run of a board driven by random events, with real covers from the fixture videos, checking the
# invariants after every step and that resident memory stays flat.
#
#   Tools/soak.sh [--seconds N] [--seed S] [--bound-mb M]
#
# Builds Tools/Soak in release and runs it (default 60 s). Each "board" is a BoardSimulation (a CanvasBoard on a
# headless CanvasScreen with real cell view-models) of 1-40 canvases, 1-12 visible, driven for 500-4000 random steps
# (taps, record, stop into copies of the fixtures, some broken, cancel, delete, add, remove, scroll, disappear,
# appear, and rewrites of take files) before it goes away and the next one starts; one CoverService serves them all.
# After every step: I1/I2, every visible cell shows what its model implies, a visible cover of a good file has
# arrived, only broken files report cover failures, live observations bounded; per board: no reload, no stale cell,
# no registration violation; at the end no observation alive. Memory: /proc/self/statm every second; the run fails
# when the resident level at the end exceeds the level after warm-up (the first fifth, at most 10 s) by more than M MB
# (default 16).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "soak: building Soak (release)"
swift build -c release --product Soak >/dev/null
echo "soak: running $(swift build -c release --show-bin-path)/Soak --fixtures Fixtures $*"
exec "$(swift build -c release --show-bin-path)/Soak" --fixtures Fixtures "$@"
