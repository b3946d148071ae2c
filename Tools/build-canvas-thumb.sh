#!/usr/bin/env bash
# Builds canvas-thumb for deployment: release, with the Swift standard library and Foundation linked in
# (`--static-swift-stdlib`), so the binary needs only the system's libraries (glibc and FFmpeg's), not the Swift
# toolchain's, and starts faster (the loader has no Swift libraries to bind: see Docs/canvas-thumb.md, "Building for
# deployment"). Then checks what it built: no Swift library among its dependencies, and a cover made by it is the same
# file as the one the ordinary release build makes.
#
#   Tools/build-canvas-thumb.sh [--print-path]
#
# Builds into .build/static (its own scratch path; the ordinary builds are left as they are). With --print-path,
# prints only the binary's path on standard output (what the benchmark uses).
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=0
[ "${1:-}" = "--print-path" ] && quiet=1
say() { [ "$quiet" -eq 1 ] && echo "$*" >&2 || echo "$*"; }
bash Tools/setup.sh >&2
swift build -c release --product canvas-thumb --static-swift-stdlib --scratch-path .build/static >&2
binary="$(swift build -c release --static-swift-stdlib --scratch-path .build/static --show-bin-path)/canvas-thumb"
if ldd "$binary" | grep -i "swift\|Foundation\|dispatch\|BlocksRuntime"; then
    echo "build-canvas-thumb: $binary still loads the Swift libraries above" >&2
    exit 1
fi
# The same cover as the ordinary build's, byte for byte (PNG output is deterministic).
swift build -c release --product canvas-thumb >&2
dynamic="$(swift build -c release --show-bin-path)/canvas-thumb"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" Fixtures/rotation-90.mp4 -o "$work/static.png" --max-size 160x160 >&2
"$dynamic" Fixtures/rotation-90.mp4 -o "$work/dynamic.png" --max-size 160x160 >&2
if ! cmp -s "$work/static.png" "$work/dynamic.png"; then
    echo "build-canvas-thumb: the static build's cover differs from the ordinary build's" >&2
    exit 1
fi
say "build-canvas-thumb: $binary (no Swift library loaded; its cover matches the ordinary build's)"
[ "$quiet" -eq 1 ] && echo "$binary"
exit 0
