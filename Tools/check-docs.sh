#!/usr/bin/env bash
# Compiles every Swift block of README.md, Docs/*.md and the DocC catalogs' pages against the package, so no example
# names an API that does not exist. The blocks whose first line is `// Apple platforms only` (UIKit, SwiftUI,
# AVFoundation) are type-checked against Tests/AppleSignatures, which declares the Apple signatures they use, each
# copied from Apple's documentation: the Apple blocks of one page are one app, one file per block in one target.
#
#   Tools/check-docs.sh            extract and build every block; exit 1 naming the page and line of a block that fails
#   Tools/check-docs.sh PAGE.md    only the blocks of these pages
#
# Each block becomes the main.swift of an executable target in the git-ignored .doc-snippets/ folder; the manifest
# declares those targets only when MULTICANVAS_DOC_SNIPPETS is set, each depending on every library of the package, and
# builds them in the package's own .build (the libraries are not rebuilt). A block is a whole program: its imports, its
# types and its top-level code. A block whose first line is `// swift-tools-version: ...` is a manifest: it is parsed
# by `swift package dump-package` in a folder of its own (its dependencies are not fetched).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh

rm -rf .doc-snippets
mkdir -p .doc-snippets
python3 - "$@" <<'PY'
import pathlib, re, sys
root = pathlib.Path(".")
pages = [root / "README.md"] + sorted((root / "Docs").glob("**/*.md")) + sorted(root.glob("Examples/**/*.md"))
pages += sorted(root.glob("Sources/*/*.docc/**/*.md"))
if len(sys.argv) > 1:
    pages = [pathlib.Path(page) for page in sys.argv[1:]]
count = apple = 0
for page in pages:
    lines = page.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            block = lines[start:end]
            first = next((line for line in block if line.strip()), "")
            if first.strip().startswith("// Apple platforms only"):
                slug = re.sub(r"[^A-Za-z0-9_-]+", "_", str(page.with_suffix("")).replace("/", "__"))
                folder = root / ".doc-snippets" / f"apple-{slug}"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"line-{start}.swift").write_text("\n".join(block) + "\n", encoding="utf-8")
                apple += 1
            elif first.strip().startswith("// swift-tools-version"):
                folder = root / ".doc-snippets" / "manifests" / f"line-{start}-{page.stem}"
                folder.mkdir(parents=True)
                (folder / "Package.swift").write_text("\n".join(block) + "\n", encoding="utf-8")
                (folder / "origin").write_text(f"{page}:{start + 1}\n", encoding="utf-8")
                count += 1
            else:
                slug = re.sub(r"[^A-Za-z0-9_-]+", "_", str(page.with_suffix("")).replace("/", "__"))
                folder = root / ".doc-snippets" / f"doc-{slug}-line-{start}"
                folder.mkdir(parents=True)
                body = "\n".join(block) + "\n"
                (folder / "main.swift").write_text(body, encoding="utf-8")
                count += 1
            index = end
        index += 1
print(f"check-docs: {count} Swift blocks to build, {apple} Apple-only blocks to type-check against Tests/AppleSignatures")
PY

log="$(mktemp)"
trap 'rm -f "$log"; bash Tools/clear-apple-stubs.sh' EXIT
# CanvasApple compiled empty by an ordinary build is not recompiled when the stand-ins appear (no source changed):
# clear it first, so this build compiles it against them.
bash Tools/clear-apple-stubs.sh
for manifest in .doc-snippets/manifests/*/; do
    [ -d "$manifest" ] || continue
    if ! (cd "$manifest" && swift package dump-package >/dev/null 2>"$log"); then
        grep -E "error:" "$log" | head -5 >&2
        echo "check-docs: the manifest at $(cat "$manifest/origin") does not parse" >&2
        exit 1
    fi
done
# The manifest's target list depends on the folder's contents, which SwiftPM's manifest cache cannot see: the variable's
# value names the blocks, so a new set of blocks is a new manifest evaluation.
snippets="$(ls .doc-snippets | sha256sum | cut -c1-16)"
if ! MULTICANVAS_DOC_SNIPPETS="$snippets" swift build -Xswiftc -warnings-as-errors >"$log" 2>&1; then
    # main.swift line N of the block whose fence is on line F of its page is line F+N of the page.
    grep -E "^/.*\.doc-snippets/.*(error|warning):" "$log" |
        sed -E -e 's#^.*/\.doc-snippets/doc-(.*)-line-([0-9]+)/main\.swift:([0-9]+):([0-9]+):#\1 \2 \3 \4#' \
            -e 's#^.*/\.doc-snippets/apple-(.*)/line-([0-9]+)\.swift:([0-9]+):([0-9]+):#\1 \2 \3 \4#' |
        awk '{ page = $1; gsub("__", "/", page); line = $2 + $3; $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print page ".md:" line ": " $0 }' | sed 's#_docc/#.docc/#' |
        sort -u | head -40 >&2 || true
    grep -q "doc-snippets/.*error:" "$log" || tail -20 "$log" >&2
    echo "check-docs: a documented Swift block does not build (see above)" >&2
    exit 1
fi
echo "check-docs: every Swift block builds"
# The Apple layer's own sources, against the same signatures, without FFmpeg, with its optional delegate methods checked.
bash Tools/check-apple.sh
# Programs that must not compile (an empty CoverProvider conformance).
bash Tools/check-compile-fails.sh
