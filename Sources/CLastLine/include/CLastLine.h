// The last line of a command-line tool killed by a fatal signal (Sources/CommandLineSupport/LastLine.swift).
//
// A signal handler may call only async-signal-safe functions (POSIX's list: `write`, `_exit`, ...); Swift code
// cannot promise that (it may allocate, retain or take a lock), so the handler is C: it writes bytes prepared
// before the signal and ends the process.
#ifndef CLASTLINE_H
#define CLASTLINE_H

#include <stddef.h>

/// Prepares the line written when `signal_number` (1 ... 64) arrives: `length` bytes copied from `bytes`, written to
/// `descriptor`, after which the process ends with `_exit(status)`. Returns 0, or -1 (and sets nothing) for a signal
/// out of range or when the copy cannot be allocated. When several such signals arrive at once (two threads crashing),
/// only the first writes its line. Installs the handler (`sigaction`) and unblocks the signal in the
/// calling thread (a parent may have started the process with it blocked); call it before the work the line is about,
/// from the thread that starts that work, never from a handler.
int last_line_prepare(int signal_number, const char *_Nonnull bytes, size_t length, int descriptor, int status);

/// Restores the default action of every signal given to `last_line_prepare` (once the work is done, so that a later
/// signal is no longer reported as if it had happened during it).
void last_line_clear(void);

#endif
