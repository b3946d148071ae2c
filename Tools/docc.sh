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

# A library that re-exports a module (`@_exported import Pixels`: CoverImage is CanvasKit's and Thumbnails' cover type)
# documents that module's public symbols as its own, so a user finds every type they touch in the library they
# picked. `dump-symbol-graph` drops re-exported symbols, so such a library's graph is extracted again with them.
bin="$(swift build --show-bin-path)"
module_maps=()
for map in "$bin"/*.build/module.modulemap; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done
for map in Sources/*/module.modulemap; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done
for include in Sources/*/include; do module_maps+=(-Xcc -I -Xcc "$include"); done
triple="$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')"
reexported() {
    { grep -rhoE '^@_exported import [A-Za-z_]+' "Sources/$1" || true; } | awk '{print $3}' | sort -u | paste -sd, -
}

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
    modules="$(reexported "$library")"
    if [ -n "$modules" ]; then
        swift-symbolgraph-extract -module-name "$library" -target "$triple" -I "$bin/Modules" \
            "${module_maps[@]}" -output-dir "$own" -minimum-access-level public -skip-inherited-docs \
            "-experimental-allowed-reexported-modules=$modules" >"$log" 2>&1 || {
            tail -20 "$log" >&2
            echo "docc: could not extract $library's symbols with $modules" >&2
            status=1
            continue
        }
    else
        cp "$graphs/$library.symbols.json" "$own/"
    fi
    find "$graphs" -maxdepth 1 -name "$library@*.symbols.json" -exec cp {} "$own/" \;
    if docc convert "$catalog" --additional-symbol-graph-dir "$own" --warnings-as-errors \
        --fallback-display-name "$library" --fallback-bundle-identifier "org.multicanvas.$library" \
        --output-path ".build/docs/$library.doccarchive" >"$log" 2>&1; then
        echo "docc: $library -> .build/docs/$library.doccarchive"
        # Every type of a re-exported module must have its page in this library's archive.
        for module in ${modules//,/ }; do
            python3 - "$graphs/$module.symbols.json" ".build/docs/$library.doccarchive" "$library" <<'PY' || status=1
import json, os, sys
graph, archive, library = sys.argv[1:]
kinds = {"swift.struct", "swift.class", "swift.enum", "swift.protocol"}
types = [s["names"]["title"] for s in json.load(open(graph))["symbols"]
         if s["kind"]["identifier"] in kinds and len(s["pathComponents"]) == 1]
missing = [t for t in types if not os.path.exists(
    os.path.join(archive, "data/documentation", library.lower(), t.lower() + ".json"))]
if not types or missing:
    module = os.path.basename(graph).split(".")[0]
    print(f"docc: {library} re-exports {module} but its archive has no page for {missing or 'any type'}",
          file=sys.stderr)
    sys.exit(1)
PY
        done
    else
        grep -E "warning|error" "$log" | head -30 >&2
        echo "docc: $library has documentation warnings (above)" >&2
        status=1
    fi
    rm -rf "$own"
done
exit "$status"
