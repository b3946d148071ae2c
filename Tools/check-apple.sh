#!/usr/bin/env bash
# Type-checks the Apple layer (Sources/CanvasApple) on Linux against Tests/AppleSignatures, without any FFmpeg-backed
# library: the module links CanvasKit only, as an iOS app does.
#
#   Tools/check-apple.sh     exit 1 naming the file and line of what does not type-check, or the method that nearly
#                            matches an optional delegate method
#
# 1. Optional delegate methods: Apple declares most delegate methods `@objc optional`, which Linux cannot model, so the
#    signature modules do not declare them. Tools/apple-witnesses.py reads Tests/AppleSignatures/
#    optional-requirements.txt and, for every type of the Apple layer conforming to a listed protocol, every method
#    named like a listed one (or within two edits of one) must be listed under that protocol; it then writes a check
#    that references each such method as a value of the listed type (with its isolation), so a wrong cell type, a
#    wrong optionality or a main-actor method where Apple calls from any thread does not type-check.
# 2. The Apple layer's sources and that check are copied into .apple-check/CanvasAppleCheck and built with
#    MULTICANVAS_APPLE_CHECK set, which declares the signature modules and that target (Package.swift).
# 3. The target's dependencies are checked to reach no FFmpeg-backed module.
set -euo pipefail
cd "$(dirname "$0")/.."

rm -rf .apple-check
mkdir -p .apple-check/CanvasAppleCheck
cp Sources/CanvasApple/*.swift .apple-check/CanvasAppleCheck/
python3 Tools/apple-witnesses.py Tests/AppleSignatures/optional-requirements.txt Sources/CanvasApple \
    .apple-check/CanvasAppleCheck/OptionalRequirementWitnesses.swift

export MULTICANVAS_APPLE_CHECK=1
closure="$(swift package describe --type json | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
seen, stack = set(), ["CanvasAppleCheck"]
while stack:
    name = stack.pop()
    if name in seen or name not in targets: continue
    seen.add(name)
    stack += targets[name].get("target_dependencies", [])
print(" ".join(sorted(seen)))')"
for forbidden in CFFmpeg MediaCore Thumbnails Composition CanvasCovers CanvasComposition; do
    if [[ " $closure " == *" $forbidden "* ]]; then
        echo "check-apple: the Apple layer depends on $forbidden, an FFmpeg-backed module an iOS app does not link" >&2
        exit 1
    fi
done

log="$(mktemp)"
trap 'rm -f "$log"; bash Tools/clear-apple-stubs.sh' EXIT
bash Tools/clear-apple-stubs.sh
if ! swift build --target CanvasAppleCheck -Xswiftc -warnings-as-errors >"$log" 2>&1; then
    grep -E "(error|warning):" "$log" | sed -e 's#^.*/\.apple-check/CanvasAppleCheck/OptionalRequirementWitnesses\.swift#(generated check of optional delegate methods)#' \
        -e 's#^.*/\.apple-check/CanvasAppleCheck/#Sources/CanvasApple/#' | sort -u | head -40 >&2
    grep -q "error:" "$log" || tail -20 "$log" >&2
    echo "check-apple: the Apple layer does not type-check against Tests/AppleSignatures (see above)" >&2
    exit 1
fi
echo "check-apple: the Apple layer type-checks against Tests/AppleSignatures (modules: $closure)"
