#!/usr/bin/env bash
# Regenerates the expected transcripts of canvas-sim (Fixtures/sim/NAME.txt and NAME.jsonl) from the scripts, after
# a reviewed change of the output. Scripts named bad-*.script are malformed on purpose and have no transcript.
# A script's first line may be `# options: ...` with extra options (e.g. --cells 8 --visible 3).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product canvas-sim
bin=$(swift build --show-bin-path)
for script in Fixtures/sim/*.script; do
    name=${script%.script}
    case $(basename "$name") in bad-*) continue ;; esac
    read -r -a extra < <(sed -n "1s/^# options: //p" "$script") || true
    "$bin/canvas-sim" --script "$script" "${extra[@]}" > "$name.txt" 2>/dev/null
    "$bin/canvas-sim" --script "$script" "${extra[@]}" --format json > "$name.jsonl" 2>/dev/null
    echo "$name: $(grep -c '^step ' "$name.txt") steps"
done
