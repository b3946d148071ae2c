// ThreadSanitizer's annotation entry points for Locking's `ThreadSanitizer` (Sources/Locking/ThreadSanitizer.swift).
//
// They exist only in a process built with `--sanitize=thread`; they are looked up once, by a constructor that runs
// when the library is loaded (Sources/LockingSanitizer/LockingSanitizer.c), and kept in two C globals. A Swift
// `static let` would be initialized lazily, so every read of it would be a call to its accessor (about nine
// instructions, twice per critical section); a C global is one load.
#ifndef LOCKING_SANITIZER_H
#define LOCKING_SANITIZER_H

/// `__tsan_acquire` and `__tsan_release`, or NULL when the process does not run under ThreadSanitizer. Written once,
/// before any Swift code runs; only read afterwards.
extern void (*_Nullable locking_tsan_acquire)(const void *_Nullable lock);
extern void (*_Nullable locking_tsan_release)(const void *_Nullable lock);

/// Records that the lock at `lock` was just taken (nothing outside ThreadSanitizer).
static inline void locking_annotate_acquire(const void *_Nullable lock) {
    if (__builtin_expect(locking_tsan_acquire != 0, 0)) locking_tsan_acquire(lock);
}

/// Records that the lock at `lock` is about to be released (nothing outside ThreadSanitizer).
static inline void locking_annotate_release(const void *_Nullable lock) {
    if (__builtin_expect(locking_tsan_release != 0, 0)) locking_tsan_release(lock);
}

/// Whether the process runs under ThreadSanitizer.
static inline _Bool locking_tsan_is_active(void) {
    return locking_tsan_acquire != 0 && locking_tsan_release != 0;
}

#endif
