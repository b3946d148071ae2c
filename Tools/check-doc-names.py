#!/usr/bin/env python3
"""Checks that what the docs name exists where they say.

Reads README.md, CHANGELOG.md, Docs/*.md and the DocC catalogs' pages, and reports (exit 1, one line per finding,
`PAGE:LINE: ...`):
- a path to a file or folder of the repository (`Sources/...`, `Tools/...`, `Docs/...`, `Fixtures/...`, `Tests/...`,
  `Examples/...`, in backticks or as a Markdown link, and relative links between pages) that does not exist;
- a type named in backticks (`CanvasScript`, `CoverImage.cgImage`: an UpperCamelCase name of two or more words) that
  no Swift file of the package declares (class, struct, enum, protocol, actor, typealias), unless it is one of
  Apple's (declared in Tests/AppleSignatures) or listed in Tools/doc-names-external.txt (toolchain and C names);
- a type placed in a module that does not declare it: "`Type` (module M)", "`Type` (M)" and "M's `Type`", where M is
  a folder of Sources/ or Tests/ (a test suite's module is its test target, e.g. "`CoverProviderTests`
  (CanvasCoversTests)").

Cheap (no build): run by CI beside Tools/check-docs.sh. `Tools/check-doc-names.py PAGE.md...` checks only those pages.
"""
import os
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
pages = [root / "README.md", root / "CHANGELOG.md"] + sorted((root / "Docs").glob("**/*.md"))
pages += sorted(root.glob("Sources/*/*.docc/**/*.md"))
if len(sys.argv) > 1:
    pages = [pathlib.Path(page).resolve() for page in sys.argv[1:]]

declaration = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|final|"
                         r"nonisolated|indirect)\s+)*(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)",
                         re.M)
# Module folder -> the types its Swift files declare.
modules: dict[str, set[str]] = {}
for top in ("Sources", "Tests", "Tools", "Examples"):
    for folder in sorted((root / top).iterdir()) if (root / top).is_dir() else []:
        if not folder.is_dir():
            continue
        names: set[str] = set()
        for file in folder.glob("**/*.swift"):
            names.update(declaration.findall(file.read_text(encoding="utf-8", errors="replace")))
        modules.setdefault(folder.name, set()).update(names)
apple = set()
for folder in (root / "Tests" / "AppleSignatures").glob("*"):
    if folder.is_dir():
        apple |= modules.get(folder.name, set())
        for file in folder.glob("*.swift"):
            apple.update(declaration.findall(file.read_text(encoding="utf-8")))
declared = set().union(*[names for name, names in modules.items() if name != "AppleSignatures"])
external_file = root / "Tools" / "doc-names-external.txt"
external = {line.split("#")[0].strip() for line in external_file.read_text(encoding="utf-8").splitlines()}
external.discard("")
known_modules = {path.name for path in (root / "Sources").iterdir() if path.is_dir()}
known_modules |= {path.name for path in (root / "Tests").iterdir() if path.is_dir()}
# Tools' and Examples' folders are executables (`LifecycleBenchmark`) named in the docs too.
programs = {path.name for top in ("Tools", "Examples") for path in (root / top).iterdir() if path.is_dir()}

type_name = re.compile(r"`([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)(?:[.<][^`]*)?`")
path_name = re.compile(r"(?<![\w./-])((?:Sources|Tools|Docs|Fixtures|Tests|Examples)/[\w.+/-]*[\w+-])")
link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
placed = [
    re.compile(r"`([A-Z]\w+)`[^`(\n]{0,3}\((?:module |in )?([A-Z]\w+)[),;]"),
    re.compile(r"\b([A-Z]\w+)'s `([A-Z]\w+)`"),
]

findings = []
for page in pages:
    text = page.read_text(encoding="utf-8")
    in_code = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        where = f"{os.path.relpath(page, root)}:{number}"
        for match in path_name.finditer(line):
            path = match.group(1).rstrip(".")
            if any(mark in path for mark in ("*", "...", "NAME", "<")):
                continue
            if not (root / path).exists():
                findings.append(f"{where}: {path} does not exist")
        if in_code:
            continue
        for match in link.finditer(line):
            target = match.group(1)
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                findings.append(f"{where}: the link {target} leads nowhere")
        for match in type_name.finditer(line):
            name = match.group(1)
            if name in declared or name in apple or name in external or name in known_modules or name in programs:
                continue
            findings.append(f"{where}: `{name}` is declared nowhere in the package (nor listed as external)")
        for pattern in placed:
            for match in pattern.finditer(line):
                name, module = match.groups() if pattern is placed[0] else reversed(match.groups())
                if module not in known_modules or name in known_modules:
                    continue
                if name not in modules.get(module, set()):
                    homes = sorted(folder for folder, names in modules.items() if name in names)
                    if homes:
                        findings.append(f"{where}: `{name}` is placed in {module}, but it is declared in "
                                        + ", ".join(homes))

for finding in findings:
    print(finding, file=sys.stderr)
if findings:
    print(f"check-doc-names: {len(findings)} names in the docs do not match the repository", file=sys.stderr)
    sys.exit(1)
print(f"check-doc-names: every path, type and module the docs name exists ({len(pages)} pages)")
