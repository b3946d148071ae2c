#!/usr/bin/env bash
# Takes the stand-in Apple modules (Tests/AppleSignatures) out of the package's default debug build once a check that
# built them is done, and CanvasApple's products with them. Tools/check-docs.sh and Tools/check-apple.sh build those
# modules into .build, where every later build's `canImport(UIKit)` would find them: CanvasApple, empty on Linux,
# would then compile against stand-ins that may be stale. Removed, the next ordinary build compiles CanvasApple empty
# again. Those scripts call it before they build (a CanvasApple compiled empty is not recompiled when the stand-ins
# appear, since no source changed) and when they exit; harmless when nothing is there.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)"
[ -d "$bin" ] || exit 0
for module in $(cd Tests/AppleSignatures && ls -d */ | tr -d /) CanvasApple CanvasAppleCheck; do
    rm -rf "$bin/Modules/$module".* "$bin/$module.build" "$bin/$module.swiftmodule"
done
