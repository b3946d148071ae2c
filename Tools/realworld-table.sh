#!/usr/bin/env bash
# Prints the "Real-world files" table of Docs/Thumbnails.md: runs ThumbnailsTests' RealWorldTests (the corpus made by
# Tools/make-corpus.sh against the ffmpeg CLI) with MULTICANVAS_REALWORLD_TABLE set, so each case writes its row, then
# sorts the rows into the suite's order. Builds the tests first (debug).
#
#   Tools/realworld-table.sh > /tmp/table.md
set -euo pipefail
cd "$(dirname "$0")/.."
rows="$(mktemp)"
trap 'rm -f "$rows"' EXIT
swift build --build-tests -Xswiftc -warnings-as-errors >&2
status=0
MULTICANVAS_REALWORLD_TABLE="$rows" swift test --skip-build --filter RealWorldTests >&2 || status=$?
echo "| shape and request | Thumbnails returns | the ffmpeg CLI returns | status |"
echo "| --- | --- | --- | --- |"
sort -n -s -k1,1 "$rows" | cut -f2-
[ "$status" -eq 0 ] || echo "realworld-table: the suite failed (status $status): rows marked 'same' may not be" >&2
exit "$status"
