import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How ``CoverBatch/run(_:concurrency:workers:timeout:report:)`` starts a worker process: a program that
/// calls ``CoverWorker/serve(options:format:)``, and its arguments.
///
/// The batch adds nothing to the arguments; it hands the worker a socket as its standard input
/// and sends the jobs through it. So the command must carry whatever the worker needs to know
/// (`canvas-thumb` re-runs itself with its own command line behind a worker flag, and the worker
/// reads its options from that). The worker's standard output and error go to `/dev/null`, and
/// it runs with `SWIFT_BACKTRACE=enable=no`, so a crash ends it at once, silently, and the batch
/// reports it.
public struct CoverWorkerCommand: Sendable {
    /// The program.
    public var executable: FileSystemPath
    /// Its arguments, `argv[0]` included, as bytes.
    public var arguments: [[UInt8]]

    /// A command running `executable` with `arguments` (`argv[0]` included).
    public init(executable: FileSystemPath, arguments: [[UInt8]]) {
        self.executable = executable
        self.arguments = arguments
    }

    /// The running program itself (`/proc/self/exe` on Linux: the same binary even if its file
    /// was replaced since), with `arguments` (`argv[0]` included).
    public static func currentExecutable(arguments: [[UInt8]]) -> CoverWorkerCommand {
        #if os(Linux)
            let executable = FileSystemPath("/proc/self/exe")
        #else
            let executable = FileSystemPath(Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
        #endif
        return CoverWorkerCommand(executable: executable, arguments: arguments)
    }
}

/// The worker side of ``CoverBatch/run(_:concurrency:workers:timeout:report:)``.
public enum CoverWorker {
    /// Serves a batch on standard input (the socket the batch started this process with): takes
    /// one job at a time, makes and writes its cover with `options` and `format`, sends back the
    /// result, until the batch closes the socket.
    ///
    /// Turns core dumps off first (a crash on a hostile file is expected and reported by the
    /// batch; a core file would land in the working directory), and keeps the memory each cover
    /// frees for the next (``CoverMemory/keepFreedMemory()``: this process's work is covers).
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` when `options` cannot be right (checked
    ///   once, before any job), standard input is not a socket (the program was not started by a
    ///   batch) or the batch sent something malformed.
    public static func serve(options: CoverOptions, format: CoverImageFormat) throws(ThumbnailError) {
        let options = try ValidatedCoverOptions(options)
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else {
            throw ThumbnailError(
                .invalidArgument, reason: "a cover worker is started by a batch, with a socket as its input")
        }
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        #if os(Linux)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
        #else
            _ = setrlimit(RLIMIT_CORE, &noCore)
        #endif
        CoverMemory.keepFreedMemory()
        let connection = WorkerConnection(descriptor: STDIN_FILENO, owns: false)
        let generator = CoverGenerator()
        while let message = connection.receiveMessage() {
            guard let job = WorkerWire.decodeJob(message) else {
                throw ThumbnailError(.invalidArgument, reason: "a cover worker received a malformed job")
            }
            // Through the generator's scheduler, on this thread: one cover at a time.
            let result = CoverBatch.write(job, as: format) { () throws(ThumbnailError) in
                try generator.blockingCover(forFileAt: job.input, options: options)
            }
            guard connection.sendMessage(WorkerWire.encode(result)) else { return }
        }
    }
}

/// A worker process a batch lane started, and its socket.
///
/// Deliberately not `Sendable`: the one lane that started it talks to it and reaps it.
final class WorkerProcess {
    private let process: pid_t
    private var connection: WorkerConnection?
    private var reaped = false

    /// Starts `command` with one end of a new socket as its standard input.
    ///
    /// - Throws: ``ThumbnailError`` `.decodeFailed` when the socket or the process cannot be made.
    init(command: CoverWorkerCommand) throws(ThumbnailError) {
        var ends: [Int32] = [-1, -1]
        #if os(Linux)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw Self.failure("cannot make a socket for a worker process")
        }
        let (ours, theirs) = (ends[0], ends[1])
        defer { _ = close(theirs) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, theirs, STDIN_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)

        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let argv = command.arguments.map(Self.duplicate) + [nil]
        let envp = environment.map { Self.duplicate(Array("\($0.key)=\($0.value)".utf8)) } + [nil]
        defer { for string in argv + envp { free(string) } }
        var process: pid_t = 0
        let spawned = command.executable.withCString { path in
            posix_spawn(&process, path, &actions, nil, argv, envp)
        }
        guard spawned == 0 else {
            _ = close(ours)
            errno = spawned
            throw Self.failure("cannot start a worker process (\(command.executable.escaped))")
        }
        self.process = process
        connection = WorkerConnection(descriptor: ours, owns: true)
    }

    deinit {
        finish()
    }

    /// Sends `job` (queued behind the ones the worker has not answered yet); false when the
    /// worker is gone.
    func send(_ job: CoverJob) -> Bool {
        connection?.sendMessage(WorkerWire.encode(job)) ?? false
    }

    /// What ``receive(before:)`` got from the worker.
    enum Answer {
        /// The result of the oldest job not answered yet.
        case result(Result<WrittenCover, ThumbnailError>)
        /// The worker died (or sent something malformed) first; ``death()`` says how.
        case died
        /// No answer came before the deadline; ``stop()`` ends the worker.
        case timedOut
    }

    /// Waits, at most until `deadline` (nil: for ever), for the result of the oldest job not
    /// answered yet.
    func receive(before deadline: ContinuousClock.Instant?) -> Answer {
        guard let connection else { return .died }
        switch connection.receiveMessage(before: deadline) {
        case .message(let message):
            return WorkerWire.decodeResult(message).map(Answer.result) ?? .died
        case .closed: return .died
        case .timedOut: return .timedOut
        }
    }

    /// Makes sure a worker that stopped answering is gone, and says how it ended ("crashed while
    /// making its cover (signal 11: Segmentation fault)"). A worker still alive (it sent
    /// something malformed) is killed first.
    func death() -> String {
        connection = nil
        kill(process, SIGKILL)
        return Self.describe(reap())
    }

    /// Kills a worker that gave no answer in time (`SIGKILL`: a worker blocked in a read or
    /// looping in a decoder cannot be asked) and waits for it to be gone, so that the temporary
    /// file it may have been writing is provably abandoned.
    func stop() {
        connection = nil
        kill(process, SIGKILL)
        _ = reap()
    }

    /// Closes the socket, which tells the worker to exit, and waits for it.
    func finish() {
        connection = nil
        _ = reap()
    }

    /// Waits for the process to end (once) and returns its wait status.
    private func reap() -> Int32 {
        guard !reaped else { return 0 }
        reaped = true
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0, errno == EINTR {}
        return status
    }

    /// What a wait status says of a worker that stopped answering.
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return ThumbnailError.crashDescription(signal: signal) }
        let code = (status >> 8) & 0xFF
        return "the worker process making its cover exited with status \(code) without an answer"
    }

    private static func duplicate(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        FileSystemPath(unchecked: bytes.filter { $0 != 0 }).withCString { strdup($0) }
    }

    private static func failure(_ action: String) -> ThumbnailError {
        ThumbnailError(.decodeFailed, reason: "\(action): \(String(cString: strerror(errno)))")
    }
}
