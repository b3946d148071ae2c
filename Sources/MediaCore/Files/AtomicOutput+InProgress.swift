import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension AtomicOutput {
    /// The temporary files of this process's outputs not committed or discarded yet, by writer.
    private struct InProgress {
        var temporaries: [ObjectIdentifier: FileSystemPath] = [:]
        /// Set by ``removeInProgress()``: the process is ending and starts no output any more.
        var ending = false
    }

    private static let inProgress = LockedValue(InProgress())

    /// Registered once, with the first output: `exit` removes what is still in progress.
    private static let exitCleanUp: Void = {
        atexit { AtomicOutput.removeInProgress() }
    }()

    /// Removes the temporary file of every output of this process still in progress, and makes any output started
    /// later fail (`.ending`). For a tool ending on a termination signal (SIGINT, SIGTERM), before it exits with the
    /// shell's status: a muxer may still be writing to a file removed here, which is harmless as the process is
    /// ending. Runs at `exit` too.
    package static func removeInProgress() {
        inProgress.withLock { state in
            state.ending = true
            for temporary in state.temporaries.values {
                _ = temporary.withCString { unlink($0) }
            }
            state.temporaries = [:]
        }
    }

    /// Records `temporary` as in progress for `writer`; false (and nothing recorded) when the process is ending.
    static func register(_ temporary: FileSystemPath, of writer: ObjectIdentifier) -> Bool {
        _ = exitCleanUp
        return inProgress.withLock { state in
            guard !state.ending else { return false }
            state.temporaries[writer] = temporary
            return true
        }
    }

    /// Runs `finish` (a rename or an unlink of `writer`'s temporary file) under the registry's lock unless
    /// ``removeInProgress()`` already removed the file, and forgets the file; returns what `finish` returned, or -1
    /// with `errno` `ENOENT` when the file was already removed.
    static func unregister(_ writer: ObjectIdentifier, finish: () -> Int32) -> Int32 {
        inProgress.withLock { state in
            guard state.temporaries.removeValue(forKey: writer) != nil else {
                errno = ENOENT
                return -1
            }
            return finish()
        }
    }
}
