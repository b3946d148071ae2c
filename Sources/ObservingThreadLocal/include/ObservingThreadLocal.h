// The thread-local slot of Observing's per-thread context (Sources/Observing/Internal/ThreadContext.swift).
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

#endif
