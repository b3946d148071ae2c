import Dispatch
import Foundation
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
/// returning, so one generator can serve any number of tasks and threads at once. Its only
/// state is the epoch that ``cancelAll()`` advances.
public final class CoverGenerator: Sendable {
    /// Advanced by ``cancelAll()``; a job stops when the epoch it started in has passed.
    private let epoch = Atomic<Int>(0)

    #if THUMBNAILS_TEST_HOOKS
        /// Called at every cancellation check (once per packet read), before checking: a test
        /// hook that cancels at a chosen packet to prove decoding stops at the next one. Compiled
        /// only with `THUMBNAILS_TEST_HOOKS` (debug builds, and the release build of the tests).
        private let checkObserver: (@Sendable () -> Void)?
    #endif

    /// A generator. Cheap: make one per screen, or share one.
    public init() {
        #if THUMBNAILS_TEST_HOOKS
            checkObserver = nil
        #endif
    }

    #if THUMBNAILS_TEST_HOOKS
        /// A generator that calls `checkObserver` at each cancellation check (tests only).
        init(checkObserver: @escaping @Sendable () -> Void) {
            self.checkObserver = checkObserver
        }
    #endif

    // MARK: Blocking

    /// Takes a cover from the file at `url`, blocking the calling thread until it is done.
    ///
    /// For a command-line tool, a benchmark, or code already on a background thread; the async
    /// ``cover(for:options:)`` and the completion-handler API run this off the caller's thread.
    /// Stops with `.cancelled` when ``cancelAll()`` is called meanwhile (or the current task is
    /// cancelled).
    ///
    /// - Throws: ``ThumbnailError``: `.invalidArgument` (a URL that is not a file URL, a bad
    ///   option), `.fileNotFound`, `.notReadable`, `.notAMediaFile`, `.noVideoStream`,
    ///   `.unsupportedCodec`, `.decodeFailed` (no frame decodes), `.cancelled`.
    public func makeCover(for url: URL, options: CoverOptions = CoverOptions()) throws(ThumbnailError) -> CoverImage {
        try makeCover(for: url, options: options, token: nil)
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
        try makeCover(from: data, name: name, options: options, token: nil)
    }

    #if THUMBNAILS_BENCHMARK_HOOKS
        /// ``makeCover(for:options:)`` with the stream probe forced on (`alwaysProbe`), for the
        /// benchmark to measure what skipping it saves. Compiled only with
        /// `THUMBNAILS_BENCHMARK_HOOKS` (Tools/bench-thumbnails.sh builds ThumbnailBenchmark so).
        package func makeCover(for url: URL, options: CoverOptions, alwaysProbe: Bool) throws(ThumbnailError)
            -> CoverImage
        {
            try makeCover(for: url, options: options, token: nil, probe: alwaysProbe ? .always : .whenIncomplete)
        }
    #endif

    /// Takes a cover from the file at `path`, blocking the calling thread: as
    /// ``makeCover(for:options:)``, for a path held as bytes (a name that is not UTF-8, which a
    /// `URL` cannot carry). Error reasons name the file by its ``FileSystemPath/escaped`` form.
    ///
    /// - Throws: ``ThumbnailError`` as ``makeCover(for:options:)``.
    public func makeCover(forFileAt path: FileSystemPath, options: CoverOptions = CoverOptions())
        throws(ThumbnailError) -> CoverImage
    {
        try makeCover(forFileAt: path, options: options, token: nil)
    }

    /// The cover of the file at `url`; `identity`, when given, is the file's status as the caller
    /// already read it (a ``CoverCache`` key's), so the file is not `stat`ed a second time.
    func makeCover(
        for url: URL,
        options: CoverOptions,
        token: CancellationToken?,
        probe: MediaInput.ProbePolicy = .whenIncomplete,
        identity: FileIdentity? = nil
    ) throws(ThumbnailError) -> CoverImage {
        guard url.isFileURL else {
            throw ThumbnailError(.invalidArgument, reason: "\(url.absoluteString): not a file URL")
        }
        let path = FileSystemPath(url)
        return try makeCover(
            forFileAt: path, options: options, token: token, probe: probe,
            status: identity.map { FileStatus(identity: $0, path: path) })
    }

    func makeCover(
        forFileAt path: FileSystemPath,
        options: CoverOptions,
        token: CancellationToken?,
        probe: MediaInput.ProbePolicy = .whenIncomplete,
        status: FileStatus? = nil
    ) throws(ThumbnailError) -> CoverImage {
        let session = try openSession(name: path.escaped, options: options, token: token) {
            interruption throws(ThumbnailError) in
            try MediaInput(fileAt: path, probe: probe, interruption: interruption, status: status)
        }
        return try session.cover(at: options.time)
    }

    func makeCover(from data: Data, name: String, options: CoverOptions, token: CancellationToken?)
        throws(ThumbnailError) -> CoverImage
    {
        let session = try openSession(name: name, options: options, token: token) {
            interruption throws(ThumbnailError) in
            try MediaInput(bytes: data, name: name, probe: .whenIncomplete, interruption: interruption)
        }
        return try session.cover(at: options.time)
    }

    /// What every entry point does first: checks the options and cancellation (both before the
    /// input is touched), then opens the input with `open` and a session on it.
    private func openSession(
        name: String,
        options: CoverOptions,
        token: CancellationToken?,
        open: (Interruption) throws(ThumbnailError) -> MediaInput
    ) throws(ThumbnailError) -> CoverSession {
        try options.validate()
        let check = cancellationCheck(token: token, name: name)
        try check()
        let input = try open(interruption(token: token))
        return try CoverSession(input: input, options: options, checkCancellation: check)
    }

    // MARK: Async

    /// Takes a cover from the file at `url`.
    ///
    /// The work runs on a global dispatch queue, never on the caller's actor or the cooperative
    /// pool. Cancelling the task stops decoding at the next packet.
    ///
    /// - Throws: `CancellationError` when the task is cancelled or ``cancelAll()`` is called
    ///   before the cover is done; otherwise a ``ThumbnailError`` as
    ///   ``makeCover(for:options:)``.
    @concurrent
    public func cover(for url: URL, options: CoverOptions = CoverOptions()) async throws -> CoverImage {
        try await runOffActor { token throws(ThumbnailError) in
            try self.makeCover(for: url, options: options, token: token)
        }
    }

    /// Takes a cover from a media file held in memory (see ``makeCover(from:name:options:)``).
    ///
    /// - Throws: `CancellationError`, or a ``ThumbnailError``.
    @concurrent
    public func cover(from data: Data, name: String = "data", options: CoverOptions = CoverOptions()) async throws
        -> CoverImage
    {
        try await runOffActor { token throws(ThumbnailError) in
            try self.makeCover(from: data, name: name, options: options, token: token)
        }
    }

    /// Covers at several times from one opening of the file at `url` (a filmstrip, a scrubbing
    /// preview), in the order of `times`, each with `options` (whose own ``CoverOptions/time``
    /// is ignored).
    ///
    /// The file is opened once, when iteration starts; stopping the iteration (or cancelling
    /// its task) stops decoding. The sequence throws the first failure and ends:
    /// `CancellationError`, or a ``ThumbnailError`` as ``makeCover(for:options:)``.
    public func covers(for url: URL, at times: [CoverTime], options: CoverOptions = CoverOptions())
        -> AsyncThrowingStream<CoverImage, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: CoverImage.self, throwing: (any Error).self)
        let token = CancellationToken()
        continuation.onTermination = { _ in token.cancel() }
        DispatchQueue.global(qos: .userInitiated).async {
            do throws(ThumbnailError) {
                let session = try self.openSession(name: url.path, options: options, token: token) {
                    interruption throws(ThumbnailError) in
                    try MediaInput(contentsOf: url, probe: .whenIncomplete, interruption: interruption)
                }
                for time in times {
                    continuation.yield(try session.cover(at: time))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error.kind == .cancelled ? CancellationError() : error)
            }
        }
        return stream
    }

    /// Covers for many files, at most `maximumConcurrency` decoding at once, delivered as each
    /// finishes (not in input order: ``FileCover/index`` says which input it is).
    ///
    /// Every input yields exactly one element, a cover or its error, unless the iteration stops
    /// or its task is cancelled: then the files in progress stop at their next packet and no
    /// more start.
    public func covers(
        for urls: [URL],
        options: CoverOptions = CoverOptions(),
        maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) -> AsyncStream<FileCover> {
        let (stream, continuation) = AsyncStream.makeStream(of: FileCover.self)
        let limit = max(1, maximumConcurrency)
        let task = Task {
            await withTaskGroup(of: FileCover.self) { group in
                var next = 0
                func startNext() {
                    guard next < urls.count else { return }
                    let index = next
                    let url = urls[index]
                    next += 1
                    group.addTask {
                        do {
                            let cover = try await self.runOffActor { token throws(ThumbnailError) in
                                try self.makeCover(for: url, options: options, token: token)
                            }
                            return FileCover(index: index, url: url, result: .success(cover))
                        } catch let error as ThumbnailError {
                            return FileCover(index: index, url: url, result: .failure(error))
                        } catch {
                            return FileCover(
                                index: index, url: url,
                                result: .failure(ThumbnailError(.cancelled, reason: "\(url.path): cancelled")))
                        }
                    }
                }
                for _ in 0..<limit { startNext() }
                while let finished = await group.next() {
                    if Task.isCancelled { break }
                    continuation.yield(finished)
                    startNext()
                }
                group.cancelAll()
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: Cancellation

    /// Stops every cover this generator is working on, whichever API started it: each stops at
    /// its next packet (async callers get `CancellationError`, completion handlers
    /// `.cancelled`). Covers requested afterwards run normally.
    public func cancelAll() {
        epoch.add(1, ordering: .sequentiallyConsistent)
    }

    /// The check a job runs between packets: the task, its request's token, or the epoch.
    func cancellationCheck(token: CancellationToken?, name: String) -> () throws(ThumbnailError) -> Void {
        let started = epoch.load(ordering: .sequentiallyConsistent)
        return { () throws(ThumbnailError) in
            #if THUMBNAILS_TEST_HOOKS
                self.checkObserver?()
            #endif
            if token?.isCancelled == true || Task.isCancelled
                || self.epoch.load(ordering: .relaxed) != started
            {
                throw ThumbnailError(.cancelled, reason: "\(name): cancelled")
            }
        }
    }

    /// What FFmpeg's interrupt callback asks during blocking reads: the same conditions as
    /// ``cancellationCheck(token:name:)``, without its test observer.
    func interruption(token: CancellationToken?) -> Interruption {
        let started = epoch.load(ordering: .sequentiallyConsistent)
        return Interruption {
            token?.isCancelled == true || Task.isCancelled || self.epoch.load(ordering: .relaxed) != started
        }
    }

    /// Runs blocking work on a global queue and waits for it without blocking the caller;
    /// cancelling the waiting task sets the work's token. `.cancelled` becomes
    /// `CancellationError`.
    func runOffActor<Value: Sendable>(
        _ work: @escaping @Sendable (CancellationToken) throws(ThumbnailError) -> Value
    ) async throws -> Value {
        let token = CancellationToken()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, ThumbnailError>, Never>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: Result { () throws(ThumbnailError) in try work(token) })
                }
            }
        } onCancel: {
            token.cancel()
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
