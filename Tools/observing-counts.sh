#!/usr/bin/env bash
# Prints Observing's counts and fails (exit 1) when one is over its bound:
#   lines       lines of Swift in Sources/Observing (at most 2,400)
#   unsafe      non-comment lines in Sources/Observing using Unmanaged, raw or typed unsafe pointers, unowned(unsafe),
#               @exclusivity(unchecked), nonisolated(unsafe), @unchecked Sendable, withLockUnchecked or
#               LockedValue(unchecked:) (at most 5; each has a comment proving it safe for every caller). A call of
#               pthread_getspecific, pthread_setspecific or pthread_key_create counts too: those hand out or take raw
#               pointers that the code may leave unspelled (the key's destructor closure takes one), so no line that
#               converts a slot's pointer escapes the count.
#   semaphores  non-comment lines in Sources/Observing using DispatchSemaphore (none: a wait blocks on a lock)
#   registries  files in Observing and CanvasKit that keep their own list of live observations (exactly 1: Observing's
#               Registry, which diagnostics, KeyValueObserver and CanvasKit's RegistrationLog all read)
# Cheap (a few greps): .ci/run calls it first.
set -euo pipefail
cd "$(dirname "$0")/.."

lines=$(find Sources/Observing -name '*.swift' -exec cat {} + | wc -l)
unsafe=$(grep -rhE 'Unmanaged|Unsafe(Mutable)?(Raw)?Pointer|unowned\(unsafe\)|@exclusivity\(unchecked\)|nonisolated\(unsafe\)|@unchecked Sendable|withLockUnchecked|unchecked:|pthread_(get|set)specific\(|pthread_key_create\(' \
    Sources/Observing | grep -vcE '^\s*//' || true)
semaphores=$(grep -rhE 'DispatchSemaphore' Sources/Observing | grep -vcE '^\s*//' || true)
# A registry: a type that stores observations (or registrations) that are live, found by its stored collection (by
# name, or a collection keyed by CanvasKit's RegistrationKey).
registry_pattern='(var|let) (live|liveObservations|pairs|registrations): \[|\[RegistrationKey:'
registry_files() {
    grep -rlE "$registry_pattern" Sources/Observing Sources/CanvasKit --include='*.swift' || true
}
registries=$(registry_files | wc -l)
registries=$((registries))

status=0
printf 'Observing: %d lines (at most 2400), %d unsafe or unchecked uses (at most 5), %d semaphores (0), %d registr%s of live observations (1)\n' \
    "$lines" "$unsafe" "$semaphores" "$registries" "$([ "$registries" -eq 1 ] && echo y || echo ies)"
[ "$lines" -le 2400 ] || { echo "observing-counts: Sources/Observing has $lines lines, over 2400" >&2; status=1; }
[ "$unsafe" -le 5 ] || { echo "observing-counts: $unsafe unsafe or unchecked uses in Sources/Observing, over 5" >&2; status=1; }
[ "$semaphores" -eq 0 ] || { echo "observing-counts: $semaphores DispatchSemaphore uses in Sources/Observing" >&2; status=1; }
if [ "$registries" -ne 1 ]; then
    echo "observing-counts: $registries files keep a list of live observations (exactly 1 wanted):" >&2
    registry_files >&2
    status=1
fi
exit "$status"
