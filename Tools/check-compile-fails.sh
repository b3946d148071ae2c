#!/usr/bin/env bash
# Checks that each program of Tests/CompileFails is refused with the message its first line names
# (`// expect: MESSAGE`), and that it compiles without its last declaration (so it fails for that reason only).
# Needs the debug build of the libraries (`swift build`).
#
#   Tools/check-compile-fails.sh    exit 1 naming a file that compiles, or fails with another message
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --target CanvasKit >/dev/null
bin="$(swift build --show-bin-path)"
flags=(-typecheck -swift-version 6 -I "$bin/Modules" -Xcc "-fmodule-map-file=$bin/LockingSanitizer.build/module.modulemap")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for file in Tests/CompileFails/*.swift; do
    expected="$(sed -n '1s#^// expect: ##p' "$file")"
    if [ -z "$expected" ]; then
        echo "check-compile-fails: $file: the first line must be '// expect: MESSAGE'" >&2
        status=1
        continue
    fi
    if swiftc "${flags[@]}" "$file" >"$work/log" 2>&1; then
        echo "check-compile-fails: $file compiles, but must fail with: $expected" >&2
        status=1
    elif ! grep -qF "error: $expected" "$work/log"; then
        echo "check-compile-fails: $file fails, but not with: $expected" >&2
        grep "error:" "$work/log" | head -3 >&2
        status=1
    fi
    # Without its last line (the offending declaration), the program compiles.
    sed '$d' "$file" >"$work/control.swift"
    if ! swiftc "${flags[@]}" "$work/control.swift" >"$work/log" 2>&1; then
        echo "check-compile-fails: $file fails even without its last line:" >&2
        grep "error:" "$work/log" | head -3 >&2
        status=1
    fi
done
[ "$status" = 0 ] && echo "check-compile-fails: every program of Tests/CompileFails is refused as expected"
exit "$status"
