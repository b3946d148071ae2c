#include "CLastLine.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAST_LINE_SIGNALS 65

struct last_line {
    char *bytes;
    size_t length;
    int descriptor;
    int status;
};

// Written only by last_line_prepare (one thread, outside any handler, with that signal's default action restored
// while its entry changes); read only by the handler. A replaced or cleared line is never freed: a handler already
// running on another thread may still be writing it (a few hundred bytes per process at most).
static struct last_line lines[LAST_LINE_SIGNALS];

// Set by the first handler to run: a second fatal signal on another thread waits for the first to end the process.
static int reporting;

static void last_line_handler(int signal_number) {
    if (__atomic_exchange_n(&reporting, 1, __ATOMIC_SEQ_CST)) {
        for (;;) pause();
    }
    if (signal_number > 0 && signal_number < LAST_LINE_SIGNALS) {
        struct last_line line = lines[signal_number];
        size_t offset = 0;
        while (line.bytes != NULL && offset < line.length) {
            ssize_t written = write(line.descriptor, line.bytes + offset, line.length - offset);
            if (written <= 0) break;
            offset += (size_t)written;
        }
        _exit(line.status);
    }
    _exit(1);
}

int last_line_prepare(int signal_number, const char *bytes, size_t length, int descriptor, int status) {
    if (signal_number <= 0 || signal_number >= LAST_LINE_SIGNALS) return -1;
    char *copy = malloc(length == 0 ? 1 : length);
    if (copy == NULL) return -1;
    memcpy(copy, bytes, length);
    // Default action while the line is replaced, so that the handler never reads a half-written entry.
    signal(signal_number, SIG_DFL);
    lines[signal_number] = (struct last_line){copy, length, descriptor, status};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = last_line_handler;
    sigfillset(&action.sa_mask);
    if (sigaction(signal_number, &action, NULL) != 0) return -1;
    // A parent may have started this process with the signal blocked (a thread of a Dispatch pool blocks most
    // signals, and a spawned child inherits that mask): this thread takes it, and so do the threads it starts.
    sigset_t unblocked;
    sigemptyset(&unblocked);
    sigaddset(&unblocked, signal_number);
    return pthread_sigmask(SIG_UNBLOCK, &unblocked, NULL) == 0 ? 0 : -1;
}

void last_line_clear(void) {
    for (int signal_number = 1; signal_number < LAST_LINE_SIGNALS; signal_number++) {
        if (lines[signal_number].bytes != NULL) signal(signal_number, SIG_DFL);
    }
}
