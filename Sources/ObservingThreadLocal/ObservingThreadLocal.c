#include "ObservingThreadLocal.h"

__thread void *_Nullable observing_thread_context OBSERVING_TLS_MODEL = 0;
