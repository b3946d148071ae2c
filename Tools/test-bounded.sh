#!/usr/bin/env bash
# Runs `swift test ARGS...` for at most SECONDS. A run that hangs fails at its bound instead of using up CI's time,
# and the failure names the tests that started and never finished (Swift Testing prints a line as each starts).
#
#   Tools/test-bounded.sh SECONDS [swift test arguments...]
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 SECONDS [swift test arguments...]" >&2; exit 2; }
limit=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# timeout puts the run in a process group of its own and signals the whole group, the test processes included.
timeout -k 30 "$limit" swift test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "swift test $*: stopped after $limit s; the tests that started and never finished:" >&2
    python3 - "$log" >&2 <<'PYTHON'
import re, sys
started, ended = [], set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    match = re.search(r"Test (.+?) started\.$", line)
    if match:
        started.append(match.group(1))
        continue
    match = re.search(r"Test (.+?) (passed|failed|skipped)", line)
    if match:
        ended.add(re.sub(r" with \d+ test cases?$", "", match.group(1)))
hung = [name for name in started if name not in ended]
print("\n".join("  " + name for name in hung) if hung else "  (none: the run hung outside a test)")
PYTHON
fi
exit "$status"
