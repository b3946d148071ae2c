#!/usr/bin/env bash
# Formats or lints the Swift sources with the toolchain's `swift format` and the committed .swift-format.
#   Tools/format.sh          rewrite files in place
#   Tools/format.sh --lint   report what differs (and undocumented public API), change nothing; exit 1 on findings
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift)
for dir in Sources Tests Tools; do [ -d "$dir" ] && paths+=("$dir"); done
case "${1:-}" in
    --lint) exec swift format lint --strict --recursive --parallel "${paths[@]}" ;;
    "") exec swift format format --in-place --recursive --parallel "${paths[@]}" ;;
    *) echo "format.sh: unknown option '$1' (use --lint or nothing)" >&2; exit 2 ;;
esac
