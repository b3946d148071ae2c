#!/usr/bin/env python3
"""Lists every Swift function over 70 lines and every Swift file over 450 lines in Sources/, and fails on any that is
not listed as known.

Usage: python3 Tools/check-size.py [--all]
  --all   list every offender, the known ones too, and exit 0 (a report, not a check)

A function is a `func`, `init`, `deinit` or `subscript` with a body, or a computed property or accessor block; its
length is every line from the one holding its keyword to the one holding its closing brace, blank lines and comments
included. A file's length is its number of lines. Comments and string literals are skipped when braces are matched.

Known offenders (Tools/size-known.txt, one a line: `file PATH` or `function PATH NAME`) are printed but do not fail the
check, so that the bound holds for everything else while their owners split them; an entry that no longer offends
fails the check too, so the list only shrinks: delete the line once its file or function is within the bounds.
Exit codes: 0 within the bounds, 1 an offender not known (or a stale known entry), 2 usage error.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_FUNCTION_LINES = 70
MAX_FILE_LINES = 450
KNOWN = os.path.join(ROOT, "Tools", "size-known.txt")


def code_only(text):
    """The text with comments and string literals blanked (newlines kept), so braces and keywords are code's."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            j = skip_string(text, i)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_string(text, i):
    """The index just past the string literal starting at `i` (raw `#"`, multi-line `\"\"\"`, interpolations)."""
    hashes = len(re.match(r"#*", text[i:]).group(0))
    j = i + hashes
    quote = '"""' if text.startswith('"""', j) else '"'
    close = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    j += len(quote)
    n = len(text)
    while j < n:
        if text.startswith(close, j):
            return j + len(close)
        if text.startswith(escape + "(", j):
            j = skip_interpolation(text, j + len(escape) + 1)
        elif text.startswith(escape, j):
            j += len(escape) + 1
        elif quote == '"' and text[j] == "\n":
            return j
        else:
            j += 1
    return n


def skip_interpolation(text, j):
    """The index just past the `)` closing an interpolation whose contents start at `j`."""
    depth, n = 1, len(text)
    while j < n and depth:
        if text[j] == '"' or (text[j] == "#" and re.match(r'#+"', text[j:])):
            j = skip_string(text, j)
            continue
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        j += 1
    return j


DECLARATION = re.compile(
    r"(?<![.\w])(func\s+(?P<func>[^\s(<]+)|(?P<init>init)[?!]?\s*[(<]|(?P<deinit>deinit)\s*\{|(?P<subscript>subscript)\s*[(<]"
    r"|(?:var)\s+(?P<var>\w+)\s*:[^=\n{]*\{)")
# A line starting one of these ends a signature that had no body (a protocol's requirement).
NEXT_DECLARATION = re.compile(
    r"\n\s*(@|func\b|var\b|let\b|init\b|deinit\b|subscript\b|case\b|static\b|typealias\b|associatedtype\b|public\b"
    r"|package\b|internal\b|private\b|fileprivate\b|mutating\b|nonmutating\b|override\b|convenience\b|required\b"
    r"|nonisolated\b|\})")


def functions(code):
    """(name, first line, last line) of every function body in `code` (comments and strings already blanked)."""
    found = []
    for match in DECLARATION.finditer(code):
        name = next(value for value in match.groupdict().values() if value)
        start = match.start()
        body = body_start(code, match.end() - 1 if match.group("var") or match.group("deinit") else match.end())
        if body is None:
            continue
        end = matching_brace(code, body)
        found.append((name, code.count("\n", 0, start) + 1, code.count("\n", 0, end) + 1))
    return found


def body_start(code, j):
    """The index of the `{` opening the body of the declaration whose signature goes on at `j`, or None."""
    depth, n = 0, len(code)
    while j < n:
        c = code[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth == 0:
            return j
        elif c == "{":
            j = matching_brace(code, j)
        elif depth == 0 and (c == "}" or c == "\n" and NEXT_DECLARATION.match(code, j)):
            return None
        j += 1
    return None


def matching_brace(code, j):
    depth, n = 0, len(code)
    while j < n:
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return n - 1


def offenders():
    """Every offender below Sources/, as (kind, path, name, lines)."""
    found = []
    for folder, _, names in os.walk(os.path.join(ROOT, "Sources")):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as file:
                text = file.read()
            lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
            if lines > MAX_FILE_LINES:
                found.append(("file", relative, "", lines))
            for function, first, last in functions(code_only(text)):
                if last - first + 1 > MAX_FUNCTION_LINES:
                    found.append(("function", relative, function, last - first + 1))
    return sorted(found)


def known_entries():
    entries = set()
    if not os.path.exists(KNOWN):
        return entries
    with open(KNOWN, encoding="utf-8") as file:
        for line in file:
            line = line.split("#", 1)[0].strip()
            if line:
                parts = line.split()
                entries.add((parts[0], parts[1], parts[2] if len(parts) > 2 else ""))
    return entries


def main(arguments):
    if arguments not in ([], ["--all"]):
        print(f"check-size: unknown arguments {' '.join(arguments)!r} (use --all or nothing)", file=sys.stderr)
        return 2
    known = known_entries()
    status = 0
    seen = set()
    for kind, path, name, lines in offenders():
        bound = MAX_FILE_LINES if kind == "file" else MAX_FUNCTION_LINES
        what = path if kind == "file" else f"{path}: {name}"
        key = (kind, path, name)
        seen.add(key)
        if key in known:
            print(f"known: {kind} {what} has {lines} lines (at most {bound})")
        else:
            print(f"check-size: {kind} {what} has {lines} lines (at most {bound})", file=sys.stderr)
            status = 1
    for kind, path, name in sorted(known - seen):
        print(f"check-size: {kind} {path} {name} is within the bounds now: delete it from Tools/size-known.txt",
              file=sys.stderr)
        status = 1
    return 0 if "--all" in arguments else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
