import Foundation
import MediaCore
import Thumbnails

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
///
/// When the command also says what its worker serves (``serving``) and the batch starts while its
/// process has a single thread, the batch's first workers are forked from that process instead
/// (on Linux): a copy of a process that has already loaded FFmpeg and the Swift runtime starts in
/// about a millisecond, where a new one takes tens of milliseconds of CPU. A child of a process
/// with one thread may run any code (no other thread held a lock at the fork), and each forked
/// worker closes every descriptor but its socket and restores the default action of the crash
/// signals, so it ends as a started worker would. A worker started after a crash or a timeout,
/// when the batch's threads are running, is always started anew from `executable`.
public struct CoverWorkerCommand: Sendable {
    /// The program.
    public var executable: FileSystemPath
    /// Its arguments, `argv[0]` included, as bytes.
    public var arguments: [[UInt8]]
    /// What the worker `executable` starts serves (the options and format it passes to
    /// ``CoverWorker/serve(options:format:)``), when known: the batch may then fork its first
    /// workers instead of starting them; nil: every worker is started from `executable`.
    public var serving: Serving?

    /// What a worker serves: the options and format of ``CoverWorker/serve(options:format:)``.
    public struct Serving: Sendable, Hashable {
        /// How each cover is taken.
        public var options: CoverOptions
        /// The image format written.
        public var format: CoverImageFormat

        /// A worker serving covers taken with `options`, written as `format`.
        public init(options: CoverOptions, format: CoverImageFormat) {
            self.options = options
            self.format = format
        }
    }

    /// A command running `executable` with `arguments` (`argv[0]` included), whose worker serves
    /// `serving` (nil: unknown, so every worker is started from `executable`).
    public init(executable: FileSystemPath, arguments: [[UInt8]], serving: Serving? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.serving = serving
    }

    /// The running program itself (`/proc/self/exe` on Linux: the same binary even if its file
    /// was replaced since), with `arguments` (`argv[0]` included), whose worker serves `serving`.
    public static func currentExecutable(arguments: [[UInt8]], serving: Serving? = nil) -> CoverWorkerCommand {
        #if os(Linux)
            let executable = FileSystemPath("/proc/self/exe")
        #else
            let executable = FileSystemPath(Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
        #endif
        return CoverWorkerCommand(executable: executable, arguments: arguments, serving: serving)
    }
}

/// The worker side of ``CoverBatch/run(_:concurrency:workers:timeout:report:)``.
public enum CoverWorker {
    /// Serves a batch on standard input (the socket the batch started this process with): takes
    /// one job at a time, makes and writes its cover with `options` and `format`, sends back the
    /// result, until the batch closes the socket.
    ///
    /// Turns core dumps off first (a crash on a hostile file is expected and reported by the
    /// batch; a core file would land in the working directory), ignores SIGINT and SIGTERM (the
    /// batch ends its workers itself: Ctrl-C reaches the whole process group, and a worker dying of
    /// it would be reported as a crash), and keeps the memory each cover frees for the next
    /// (``CoverMemory/keepFreedMemory()``: this process's work is covers).
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` when `options` cannot be right (checked
    ///   once, before any job), standard input is not a socket (the program was not started by a
    ///   batch) or the batch sent something malformed.
    public static func serve(options: CoverOptions, format: CoverImageFormat) throws(ThumbnailError) {
        try options.validate()
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
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        CoverMemory.keepFreedMemory()
        let connection = WorkerConnection(descriptor: STDIN_FILENO, owns: false)
        let generator = CoverGenerator()
        while let message = connection.receiveMessage() {
            guard let job = WorkerWire.decodeJob(message) else {
                throw ThumbnailError(.invalidArgument, reason: "a cover worker received a malformed job")
            }
            // Through the generator's scheduler, on this thread: one cover at a time.
            let result = CoverBatch.write(job, as: format) { () throws(ThumbnailError) in
                try generator.makeCover(forFileAt: job.input, options: options)
            }
            guard connection.sendMessage(WorkerWire.encode(result)) else { return }
        }
    }
}

/// A worker process forked before a batch's lanes start (``WorkerProcess/forkFirst(count:serving:)``),
/// not yet handed to the lane that will talk to it.
struct ForkedWorker: Sendable {
    /// The worker.
    let process: pid_t
    /// The batch's end of its socket.
    let descriptor: Int32
    /// When it was forked: the deadline of its first job counts from here.
    let started: ContinuousClock.Instant
}

/// A worker process a batch lane started, and its socket.
///
/// Deliberately not `Sendable`: the one lane that started it talks to it and reaps it.
final class WorkerProcess {
    private let process: pid_t
    private var connection: WorkerConnection?
    private var reaped = false

    /// Takes over a worker forked for this lane.
    init(adopting forked: ForkedWorker) {
        process = forked.process
        connection = WorkerConnection(descriptor: forked.descriptor, owns: true)
    }

    /// Records a new worker for ``CoverBatch/abandon()``; one started after it is killed at once.
    private static func record(_ process: pid_t) {
        if !RunningWorkers.add(process) { kill(process, SIGKILL) }
    }

    /// Forks up to `count` workers serving `serving` from this process, when it has a single
    /// thread (Linux only; none otherwise, nor without `serving`): the batch's first workers,
    /// before its lanes start. Fewer when a fork fails (the lanes start the others).
    static func forkFirst(count: Int, serving: CoverWorkerCommand.Serving?) -> [ForkedWorker] {
        #if os(Linux)
            guard let serving, count > 0, threadCount() == 1 else { return [] }
            var forked: [ForkedWorker] = []
            for _ in 0..<count {
                guard let worker = fork(serving: serving) else { break }
                forked.append(worker)
            }
            return forked
        #else
            return []
        #endif
    }

    #if os(Linux)
        /// How many threads this process has (the entries of `/proc/self/task`); 0 when unknown.
        static func threadCount() -> Int {
            guard let folder = opendir("/proc/self/task") else { return 0 }
            defer { closedir(folder) }
            var count = 0
            while let entry = readdir(folder) {
                if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
            }
            return count
        }

        /// Forks one worker serving `serving` (the caller has a single thread); nil when the
        /// socket or the fork fails.
        private static func fork(serving: CoverWorkerCommand.Serving) -> ForkedWorker? {
            var ends: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
            else { return nil }
            let (ours, theirs) = (ends[0], ends[1])
            // Nothing buffered in C's stdio is copied into the child (it could be written twice).
            _ = fflush(nil)
            let process = Glibc.fork()
            if process == 0 { serveForked(socket: theirs, serving: serving) }
            _ = close(theirs)
            guard process > 0 else {
                _ = close(ours)
                return nil
            }
            record(process)
            return ForkedWorker(process: process, descriptor: ours, started: .now)
        }

        /// The forked child: becomes a worker as a started one would be (its socket as standard
        /// input, standard output and error on `/dev/null`, no other descriptor, the crash
        /// signals' default action, which Swift's backtracer replaced in the batch's process)
        /// and serves until the batch closes the socket. Never returns.
        private static func serveForked(socket: Int32, serving: CoverWorkerCommand.Serving) -> Never {
            if socket != STDIN_FILENO {
                _ = dup2(socket, STDIN_FILENO)
            }
            let null = open("/dev/null", O_WRONLY)
            if null >= 0 {
                _ = dup2(null, STDOUT_FILENO)
                _ = dup2(null, STDERR_FILENO)
            }
            closeDescriptors(from: STDERR_FILENO + 1)
            for crash in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS] {
                _ = signal(crash, SIG_DFL)
            }
            do throws(ThumbnailError) {
                try CoverWorker.serve(options: serving.options, format: serving.format)
                _exit(0)
            } catch {
                _exit(2)
            }
        }

        /// Closes every descriptor of this process from `lowest` up (those of `/proc/self/fd`:
        /// the other workers' sockets, the batch's files and pipes), so that a worker holds only
        /// its own socket: the batch's end of another worker's socket held here would keep that
        /// worker from seeing the batch end.
        private static func closeDescriptors(from lowest: Int32) {
            guard let folder = opendir("/proc/self/fd") else { return }
            let own = dirfd(folder)
            var open: [Int32] = []
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if let descriptor = Int32(name), descriptor >= lowest, descriptor != own { open.append(descriptor) }
            }
            closedir(folder)
            for descriptor in open { _ = close(descriptor) }
        }
    #endif

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
        Self.record(process)
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
        // Abandoned: ``CoverBatch/abandon()`` killed the worker and reaps it.
        guard RunningWorkers.remove(process) else { return SIGKILL }
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0, errno == EINTR {}
        return status
    }

    /// What a wait status says of a worker that stopped answering.
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return CoverJobError.crashDescription(signal: signal) }
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
