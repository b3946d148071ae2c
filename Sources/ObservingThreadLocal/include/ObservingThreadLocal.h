// The thread-local slot of Observing's per-thread context (Sources/Observing/Internal/ThreadContext.swift), the
// runtime's uniqueness check (Sources/Observing/Internal/RegistrarProbe.swift) and its liveness checks
// (Sources/Observing/Internal/RootReference.swift).
//
// Swift has no thread-local variables of its own; `pthread_getspecific` costs a call and a lookup on every
// delivered change. A C `__thread` variable is one load from the thread pointer. The "initial-exec" model
// keeps it that way when the library is linked into an executable or a library loaded at startup (the
// normal cases for a Swift package); the slot is 8 bytes of the static TLS block.
#ifndef OBSERVING_THREAD_LOCAL_H
#define OBSERVING_THREAD_LOCAL_H

#if defined(__linux__) && !defined(__ANDROID__)
#define OBSERVING_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define OBSERVING_TLS_MODEL
#endif

/// The calling thread's context (an unmanaged, retained `ThreadContext`), or NULL before its first use
/// and after the thread's exit destructor released it.
extern __thread void *_Nullable observing_thread_context OBSERVING_TLS_MODEL;

/// The calling thread's context pointer, or NULL.
static inline void *_Nullable observing_current_context(void) {
    return observing_thread_context;
}

/// Stores the calling thread's context pointer.
static inline void observing_set_current_context(void *_Nullable context) {
    observing_thread_context = context;
}

/// The Swift runtime's uniqueness check, the entry point `isKnownUniquelyReferenced` compiles to for a native
/// Swift object (exported by the runtime with the C calling convention). Swift code may not name runtime symbols
/// itself; Observing's `RegistrarProbe` calls it through `observing_is_uniquely_referenced`.
_Bool swift_isUniquelyReferenced_nonNull_native(const void *_Nonnull object);

/// Whether the native Swift object at `object` has a strong reference count of one. `object` must be a live
/// native Swift object.
static inline _Bool observing_is_uniquely_referenced(const void *_Nonnull object) {
    return swift_isUniquelyReferenced_nonNull_native(object);
}

/// The Swift runtime's `swift_tryRetain` and `swift_isDeallocating` (exported with the C calling convention, like the
/// uniqueness check above): retain a native Swift object unless its deinit has begun (returning it, or NULL), and
/// tell whether it has. Used by Observing's `RootReference` through the functions below; `object` must be a native
/// Swift object whose memory is still allocated (an unowned reference count keeps it).
void *_Nullable swift_tryRetain(void *_Nonnull object);
_Bool swift_isDeallocating(void *_Nonnull object);
/// The runtime's unowned reference count of a native Swift object (what an `unowned` reference holds): it keeps the
/// object's memory allocated, not the object alive.
void *_Nonnull swift_unownedRetain(void *_Nonnull object);
void swift_unownedRelease(void *_Nonnull object);

/// Takes an unowned reference count on the native Swift object at `object`.
static inline void observing_unowned_retain(void *_Nonnull object) {
    (void)swift_unownedRetain(object);
}

/// Gives back an unowned reference count taken by `observing_unowned_retain`.
static inline void observing_unowned_release(void *_Nonnull object) {
    swift_unownedRelease(object);
}

/// Retains the native Swift object at `object` unless it is deinitializing; returns whether it did.
static inline _Bool observing_try_retain(void *_Nonnull object) {
    return swift_tryRetain(object) != 0;
}

/// Whether the deinit of the native Swift object at `object` has begun.
static inline _Bool observing_is_deallocating(void *_Nonnull object) {
    return swift_isDeallocating(object);
}

#endif
