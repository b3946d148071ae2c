import Locking
import MediaCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension CoverBatch {
    /// Ends every batch of this process at once, for a tool told to stop (SIGINT, SIGTERM) that exits right after:
    /// kills the worker processes (`SIGKILL`: one blocked in a read cannot be asked), waits for them, and removes the
    /// temporary files they and this process's threads were writing, so no hidden partial file is left. No result
    /// is reported after it starts, and no worker is started. Idempotent.
    public static func abandon() {
        let (processes, folders) = RunningWorkers.stopAll()
        for process in processes { kill(process, SIGKILL) }
        for process in processes {
            var status: Int32 = 0
            while waitpid(process, &status, 0) < 0, errno == EINTR {}
        }
        AtomicOutput.removeInProgress()
        // The workers are gone: their files are provably abandoned now.
        for folder in folders { AtomicOutput.removeAbandoned(in: folder) }
    }
}

/// The worker processes of this process's batches and their output folders, for ``CoverBatch/abandon()``.
enum RunningWorkers {
    private struct State {
        var processes: Set<pid_t> = []
        var folders: Set<FileSystemPath> = []
        var stopped = false
    }

    private static let state = LockedValue(State())

    /// Whether ``CoverBatch/abandon()`` ran: nothing is reported or started any more.
    static var isStopped: Bool { state.withLock { $0.stopped } }

    /// Records the output folders of a batch's jobs.
    static func note(folders: some Sequence<FileSystemPath>) {
        let folders = Set(folders)
        state.withLock { $0.folders.formUnion(folders) }
    }

    /// Records a started worker; false (nothing recorded) once the batches were abandoned: the caller kills it.
    static func add(_ process: pid_t) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.processes.insert(process)
            return true
        }
    }

    /// Forgets a worker about to be reaped; false when ``CoverBatch/abandon()`` took it (and reaps it).
    static func remove(_ process: pid_t) -> Bool {
        state.withLock { $0.processes.remove(process) != nil }
    }

    /// Marks the batches abandoned and hands over the workers and the folders.
    static func stopAll() -> (processes: [pid_t], folders: [FileSystemPath]) {
        state.withLock { state in
            state.stopped = true
            let taken = (Array(state.processes), Array(state.folders))
            state.processes = []
            return taken
        }
    }
}
