#!/usr/bin/env bash
# Builds the DocC documentation of every library product with the toolchain's own `docc`, warnings as errors (a
# broken ``Symbol`` link, an unresolvable topic or a malformed catalog fails the run).
#
#   Tools/docc.sh                 every library, archives into .build/docs/NAME.doccarchive
#   Tools/docc.sh Observing ...   only those
#
# Symbol graphs come from `swift package dump-symbol-graph` (public API only), which needs no plugin; each library's
# catalog is Sources/NAME/NAME.docc. A library without a catalog is an error: every product a user can pick has docs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh

if [ "$#" -gt 0 ]; then
    libraries=("$@")
else
    mapfile -t libraries < <(swift package describe --type json 2>/dev/null |
        python3 -c 'import json, sys; print("\n".join(p["name"] for p in json.load(sys.stdin)["products"] if "library" in p["type"]))')
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift package dump-symbol-graph --minimum-access-level public --skip-inherited-docs >"$log" 2>&1 || {
    tail -20 "$log" >&2
    echo "docc: could not build the symbol graphs" >&2
    exit 1
}
graphs="$(grep -oE '/[^ ]*symbolgraph' "$log" | tail -n 1)"
[ -d "$graphs" ] || graphs="$(find .build -type d -name symbolgraph -newer "$log" | head -n 1)"
[ -d "$graphs" ] || { echo "docc: no symbol graphs were written" >&2; exit 1; }

mkdir -p .build/docs
status=0
for library in "${libraries[@]}"; do
    catalog="Sources/$library/$library.docc"
    if [ ! -d "$catalog" ]; then
        echo "docc: $library has no catalog ($catalog)" >&2
        status=1
        continue
    fi
    own="$(mktemp -d)"
    cp "$graphs/$library.symbols.json" "$own/"
    find "$graphs" -maxdepth 1 -name "$library@*.symbols.json" -exec cp {} "$own/" \;
    if docc convert "$catalog" --additional-symbol-graph-dir "$own" --warnings-as-errors \
        --fallback-display-name "$library" --fallback-bundle-identifier "org.multicanvas.$library" \
        --output-path ".build/docs/$library.doccarchive" >"$log" 2>&1; then
        echo "docc: $library -> .build/docs/$library.doccarchive"
    else
        grep -E "warning|error" "$log" | head -30 >&2
        echo "docc: $library has documentation warnings (above)" >&2
        status=1
    fi
    rm -rf "$own"
done
exit "$status"
