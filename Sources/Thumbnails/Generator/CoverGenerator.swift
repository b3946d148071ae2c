import Dispatch
import Foundation
import MediaCore
import Synchronization

/// Takes covers (still pictures) from video files with FFmpeg: the blocking core the other APIs
/// build on, the async API, several times from one file, many files at once, and the
/// completion-handler API.
///
/// ```swift
/// let generator = CoverGenerator()
/// let options = CoverOptions(maximumSize: PixelSize(width: 320, height: 320))
/// let cover = try await generator.cover(for: URL(filePath: "take.mp4"), options: options)
/// try cover.write(to: URL(filePath: "take.png"), as: .png)
/// ```
///
/// A generator holds no open files: every call opens its input, decodes, and closes it before
/// returning, so one generator can serve any number of tasks and threads at once. Every call,
/// whichever API it comes through, is admitted by the generator's one scheduler: it starts
/// covers in the order they were asked for, at most ``maximumConcurrency`` at once (no limit by
/// default), and ``cancelAll()`` reaches all of them, waiting or running.
public final class CoverGenerator: Sendable {
    /// Admits, starts and cancels every cover of this generator.
    package let scheduler: DecodeScheduler

    #if THUMBNAILS_TEST_HOOKS
        /// Called at every cancellation check (once per packet read), before checking: a test
        /// hook that cancels at a chosen packet to prove decoding stops at the next one. Compiled
        /// only with `THUMBNAILS_TEST_HOOKS` (debug builds, and the release build of the tests).
        /// It receives the name the cover's errors use for its input (its path).
        private let checkObserver: (@Sendable (String) -> Void)?
    #endif

    /// A generator with no limit of its own on covers made at once (each call runs as soon as
    /// it is made). Cheap: make one per screen, or share one.
    public init() {
        scheduler = DecodeScheduler()
        #if THUMBNAILS_TEST_HOOKS
            checkObserver = nil
        #endif
    }

    /// A generator that makes at most `maximumConcurrency` covers at once (at least 1), over all
    /// its APIs together: a call beyond the limit waits for its turn, in the order the calls
    /// were made (a blocking call waits on its thread, an async one without blocking).
    public init(maximumConcurrency: Int) {
        scheduler = DecodeScheduler(limit: maximumConcurrency)
        #if THUMBNAILS_TEST_HOOKS
            checkObserver = nil
        #endif
    }

    #if THUMBNAILS_TEST_HOOKS
        /// A generator that calls `checkObserver` at each cancellation check (tests only).
        init(maximumConcurrency: Int = .max, checkObserver: @escaping @Sendable () -> Void) {
            scheduler = DecodeScheduler(limit: maximumConcurrency)
            self.checkObserver = { _ in checkObserver() }
        }

        /// A generator that calls `inputObserver` with the input's name at each cancellation
        /// check (tests only): the first call for an input is the moment its cover started.
        init(maximumConcurrency: Int = .max, inputObserver: @escaping @Sendable (String) -> Void) {
            scheduler = DecodeScheduler(limit: maximumConcurrency)
            self.checkObserver = inputObserver
        }
    #endif

    /// The most covers this generator makes at once (`Int.max`: no limit of its own).
    public var maximumConcurrency: Int { scheduler.limit }

    // MARK: Blocking

    /// Takes a cover from the file at `url`, blocking the calling thread until it is done.
    ///
    /// For a command-line tool, a benchmark, or code already on a background thread; the async
    /// ``cover(for:options:)`` and the completion-handler API run off the caller's thread.
    /// Decodes on the calling thread, once the generator's ``maximumConcurrency`` lets it.
    /// Stops with `.cancelled` when ``cancelAll()`` is called meanwhile (or the current task is
    /// cancelled).
    ///
    /// - Throws: ``ThumbnailError``: `.invalidArgument` (a URL that is not a file URL, a bad
    ///   option), `.fileNotFound`, `.notReadable`, `.notAMediaFile`, `.noVideoStream`,
    ///   `.unsupportedCodec`, `.decodeFailed` (no frame decodes), `.cancelled`.
    public func makeCover(for url: URL, options: CoverOptions = CoverOptions()) throws(ThumbnailError) -> CoverImage {
        let path = try Self.path(of: url)
        return try blockingCover(forFileAt: path, options: ValidatedCoverOptions(options))
    }

    /// Takes a cover from a media file held in memory (the bytes of an MP4, a WebM, ...),
    /// blocking the calling thread. `name` stands for the data in error reasons.
    ///
    /// FFmpeg reads the bytes through a custom I/O context; nothing touches the file system,
    /// and nothing in the data can make FFmpeg open another file or a URL.
    ///
    /// - Throws: ``ThumbnailError`` as ``makeCover(for:options:)``, with `.notAMediaFile` for
    ///   empty or unrecognised data.
    public func makeCover(from data: Data, name: String = "data", options: CoverOptions = CoverOptions())
        throws(ThumbnailError) -> CoverImage
    {
        let options = try ValidatedCoverOptions(options)
        return try scheduler.run(name: name) { cancellation throws(ThumbnailError) in
            try makeCover(from: data, name: name, options: options, cancellation: cancellation)
        }
    }

    #if THUMBNAILS_BENCHMARK_HOOKS
        /// ``makeCover(for:options:)`` with the stream probe forced on (`alwaysProbe`), for the
        /// benchmark to measure what skipping it saves. Compiled only with
        /// `THUMBNAILS_BENCHMARK_HOOKS` (Tools/bench-thumbnails.sh builds ThumbnailBenchmark so).
        package func makeCover(for url: URL, options: CoverOptions, alwaysProbe: Bool) throws(ThumbnailError)
            -> CoverImage
        {
            let path = try Self.path(of: url)
            return try blockingCover(
                forFileAt: path, options: ValidatedCoverOptions(options), probe: alwaysProbe ? .always : .whenIncomplete
            )
        }
    #endif

    /// Takes a cover from the file at `path`, blocking the calling thread: as
    /// ``makeCover(for:options:)``, for a path held as bytes (a name that is not UTF-8, which a
    /// `URL` cannot carry). Error reasons name the file by its `FileSystemPath.escaped` form.
    ///
    /// - Throws: ``ThumbnailError`` as ``makeCover(for:options:)``.
    public func makeCover(forFileAt path: FileSystemPath, options: CoverOptions = CoverOptions())
        throws(ThumbnailError) -> CoverImage
    {
        try blockingCover(forFileAt: path, options: ValidatedCoverOptions(options))
    }

    /// The cover of the file at `path`, decoded on the calling thread once the scheduler admits it.
    func blockingCover(
        forFileAt path: FileSystemPath,
        options: ValidatedCoverOptions,
        probe: MediaInput.ProbePolicy = .whenIncomplete
    ) throws(ThumbnailError) -> CoverImage {
        try scheduler.run(name: path.escaped) { cancellation throws(ThumbnailError) in
            try makeCover(forFileAt: path, options: options, cancellation: cancellation, probe: probe)
        }
    }

    /// The path of a file URL.
    ///
    /// - Throws: `.invalidArgument` for a URL that is not a file URL.
    static func path(of url: URL) throws(ThumbnailError) -> FileSystemPath {
        guard url.isFileURL else {
            throw ThumbnailError(.invalidArgument, reason: "\(url.absoluteString): not a file URL")
        }
        return FileSystemPath(url)
    }

    // MARK: Decoding (admitted work)

    /// The cover of the file at `url`, on the thread the scheduler admitted it on; `identity`,
    /// when given, is the file's status as the caller already read it (a ``CoverCache`` key's), so
    /// the file is not `stat`ed a second time.
    func makeCover(
        for url: URL,
        options: ValidatedCoverOptions,
        cancellation: DecodeScheduler.Cancellation,
        identity: FileIdentity? = nil
    ) throws(ThumbnailError) -> CoverImage {
        let path = try Self.path(of: url)
        return try makeCover(
            forFileAt: path, options: options, cancellation: cancellation,
            status: identity.map { FileStatus(identity: $0, path: path) })
    }

    func makeCover(
        forFileAt path: FileSystemPath,
        options: ValidatedCoverOptions,
        cancellation: DecodeScheduler.Cancellation,
        probe: MediaInput.ProbePolicy = .whenIncomplete,
        status: FileStatus? = nil
    ) throws(ThumbnailError) -> CoverImage {
        let session = try openSession(name: path.escaped, options: options, cancellation: cancellation) {
            interruption throws(ThumbnailError) in
            try MediaInput(
                fileAt: path, probe: probe, interruption: interruption, status: status, policy: options.inputPolicy)
        }
        return try session.cover(at: options.time)
    }

    func makeCover(
        from data: Data,
        name: String,
        options: ValidatedCoverOptions,
        cancellation: DecodeScheduler.Cancellation
    ) throws(ThumbnailError) -> CoverImage {
        let session = try openSession(name: name, options: options, cancellation: cancellation) {
            interruption throws(ThumbnailError) in
            try MediaInput(
                bytes: data, name: name, probe: .whenIncomplete, interruption: interruption,
                policy: options.inputPolicy)
        }
        return try session.cover(at: options.time)
    }

    /// What every admitted cover does first: checks cancellation (before the input is touched),
    /// then opens the input with `open` and a session on it.
    private func openSession(
        name: String,
        options: ValidatedCoverOptions,
        cancellation: DecodeScheduler.Cancellation,
        open: (Interruption) throws(ThumbnailError) -> MediaInput
    ) throws(ThumbnailError) -> CoverSession {
        let check = cancellationCheck(cancellation, name: name)
        try check()
        let input = try open(Interruption { cancellation.isRequested })
        return try CoverSession(input: input, options: options, checkCancellation: check)
    }

    /// The check a cover runs between packets: its scheduler's ``DecodeScheduler/Cancellation``
    /// (its request's token, its group, ``cancelAll()``, the current task).
    private func cancellationCheck(
        _ cancellation: DecodeScheduler.Cancellation,
        name: String
    ) -> () throws(ThumbnailError) -> Void {
        { () throws(ThumbnailError) in
            #if THUMBNAILS_TEST_HOOKS
                self.checkObserver?(name)
            #endif
            if cancellation.isRequested {
                throw ThumbnailError(.cancelled, reason: "\(name): cancelled")
            }
        }
    }

    // MARK: Async

    /// Takes a cover from the file at `url`.
    ///
    /// The work runs on a thread of the generator's scheduler, never on the caller's actor or
    /// the cooperative pool. Cancelling the task stops decoding at the next packet (or, while the
    /// cover waits for its turn, withdraws it: it never starts).
    ///
    /// - Throws: `CancellationError` when the task is cancelled or ``cancelAll()`` is called
    ///   before the cover is done; otherwise a ``ThumbnailError`` as
    ///   ``makeCover(for:options:)``.
    @concurrent
    public func cover(for url: URL, options: CoverOptions = CoverOptions()) async throws -> CoverImage {
        let path = try Self.path(of: url)
        let options = try ValidatedCoverOptions(options)
        return try await decode(name: path.escaped) { cancellation throws(ThumbnailError) in
            try self.makeCover(forFileAt: path, options: options, cancellation: cancellation)
        }
    }

    /// Takes a cover from a media file held in memory (see ``makeCover(from:name:options:)``).
    ///
    /// - Throws: `CancellationError`, or a ``ThumbnailError``.
    @concurrent
    public func cover(from data: Data, name: String = "data", options: CoverOptions = CoverOptions()) async throws
        -> CoverImage
    {
        let options = try ValidatedCoverOptions(options)
        return try await decode(name: name) { cancellation throws(ThumbnailError) in
            try self.makeCover(from: data, name: name, options: options, cancellation: cancellation)
        }
    }

    /// Covers at several times from one opening of the file at `url` (a filmstrip, a scrubbing
    /// preview), in the order of `times`, each with `options` (whose own ``CoverOptions/time``
    /// is ignored).
    ///
    /// The file is opened once, when the scheduler admits the sequence's work; stopping the
    /// iteration (or cancelling its task) stops decoding. The sequence throws the first failure
    /// and ends: `CancellationError`, or a ``ThumbnailError`` as ``makeCover(for:options:)``
    /// (`.invalidArgument` before anything is opened when the options or one of `times` cannot be
    /// right).
    public func covers(for url: URL, at times: [CoverTime], options: CoverOptions = CoverOptions())
        -> AsyncThrowingStream<CoverImage, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: CoverImage.self, throwing: (any Error).self)
        let checked: (ValidatedCoverOptions, [ValidatedCoverTime])
        do throws(ThumbnailError) {
            checked = (
                try ValidatedCoverOptions(options),
                try times.map { time throws(ThumbnailError) in
                    try ValidatedCoverTime(time)
                }
            )
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let (options, times) = checked
        let token = CancellationToken()
        continuation.onTermination = { _ in
            token.cancel()
            self.scheduler.withdraw(token)
        }
        scheduler.submit(token: token) { cancellation in
            do throws(ThumbnailError) {
                let session = try self.openSession(name: url.path, options: options, cancellation: cancellation) {
                    interruption throws(ThumbnailError) in
                    try MediaInput(
                        contentsOf: url, probe: .whenIncomplete, interruption: interruption,
                        policy: options.inputPolicy)
                }
                for time in times {
                    continuation.yield(try session.cover(at: time))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error.kind == .cancelled ? CancellationError() : error)
            }
            return nil
        } dropped: {
            continuation.finish(throwing: CancellationError())
        }
        return stream
    }

    /// Covers for many files, at most `maximumConcurrency` decoding at once (and never more than
    /// the generator's own ``maximumConcurrency``), started in input order and delivered as each
    /// finishes (not in input order: ``FileCover/index`` says which input it is).
    ///
    /// Every input yields exactly one element, a cover or its error (`.cancelled` for one that
    /// ``cancelAll()`` stopped or withdrew before it started), unless the iteration stops or its
    /// task is cancelled: then the files in progress stop at their next packet and no more start.
    public func covers(
        for urls: [URL],
        options: CoverOptions = CoverOptions(),
        maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) -> AsyncStream<FileCover> {
        let (stream, continuation) = AsyncStream.makeStream(of: FileCover.self)
        let validated: ValidatedCoverOptions
        do throws(ThumbnailError) {
            validated = try ValidatedCoverOptions(options)
        } catch {
            for (index, url) in urls.enumerated() {
                continuation.yield(FileCover(index: index, url: url, result: .failure(error)))
            }
            continuation.finish()
            return stream
        }
        guard !urls.isEmpty else {
            continuation.finish()
            return stream
        }
        let group = DecodeScheduler.Group(limit: maximumConcurrency)
        let remaining = Countdown(urls.count)
        continuation.onTermination = { _ in self.scheduler.withdraw(group) }
        for (index, url) in urls.enumerated() {
            scheduler.submit(group: group) { cancellation in
                let result = Result { () throws(ThumbnailError) in
                    try self.makeCover(for: url, options: validated, cancellation: cancellation)
                }
                continuation.yield(FileCover(index: index, url: url, result: result))
                if remaining.countDown() { continuation.finish() }
                return nil
            } dropped: {
                let cancelled = ThumbnailError(.cancelled, reason: "\(url.path): cancelled")
                continuation.yield(FileCover(index: index, url: url, result: .failure(cancelled)))
                if remaining.countDown() { continuation.finish() }
            }
        }
        return stream
    }

    // MARK: Cancellation

    /// Stops every cover this generator is working on, whichever API started it: each running
    /// one stops at its next packet, and those waiting for their turn never start (async callers
    /// get `CancellationError`, completion handlers and batches `.cancelled`). Covers requested
    /// afterwards run normally.
    public func cancelAll() {
        scheduler.cancelAll()
    }

    /// Submits blocking work to the scheduler and waits for it without blocking the caller;
    /// cancelling the waiting task withdraws the work (waiting) or stops it at its next check
    /// (running). `.cancelled` becomes `CancellationError`.
    func decode<Value: Sendable>(
        name: String,
        _ work: @escaping @Sendable (DecodeScheduler.Cancellation) throws(ThumbnailError) -> Value
    ) async throws -> Value {
        let token = CancellationToken()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, ThumbnailError>, Never>) in
                scheduler.submit(token: token) { cancellation in
                    continuation.resume(returning: Result { () throws(ThumbnailError) in try work(cancellation) })
                    return nil
                } dropped: {
                    continuation.resume(returning: .failure(ThumbnailError(.cancelled, reason: "\(name): cancelled")))
                }
            }
        } onCancel: {
            token.cancel()
            scheduler.withdraw(token)
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error) where error.kind == .cancelled:
            throw CancellationError()
        case .failure(let error):
            throw error
        }
    }
}

/// How many of a sequence's inputs have not yielded yet.
private final class Countdown: Sendable {
    private let left: Atomic<Int>

    init(_ count: Int) {
        left = Atomic(count)
    }

    /// Counts one down; true for the last.
    func countDown() -> Bool {
        left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}
