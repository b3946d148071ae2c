#define _GNU_SOURCE
#include "LockingSanitizer.h"

#include <dlfcn.h>

void (*_Nullable locking_tsan_acquire)(const void *_Nullable lock) = 0;
void (*_Nullable locking_tsan_release)(const void *_Nullable lock) = 0;

// Runs when the library is loaded, before any Swift code (so before any lock is taken). Outside ThreadSanitizer the
// symbols do not exist and both stay NULL.
__attribute__((constructor)) static void locking_look_up_annotations(void) {
    locking_tsan_acquire = (void (*)(const void *))dlsym(RTLD_DEFAULT, "__tsan_acquire");
    locking_tsan_release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "__tsan_release");
}
