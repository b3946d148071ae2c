import Dispatch
import Foundation
import Locking
import MediaCore

/// The cover provider for a grid of cells: a cache in front of a generator, requests that share
/// one decode per file and size, a limit on decodes running at once, and cancellation per
/// request or for everything.
///
/// It is CanvasKit's `CoverProvider` (`CoverService+CoverProvider.swift`; Thumbnails depends on
/// CanvasKit, and CanvasKit never imports FFmpeg): a cell's view-model asks for its video's
/// cover at the cell's size when it shows a cover, and cancels when it is reused or the take
/// changes.
///
/// ```swift
/// let covers = CoverService()
/// // willDisplay:
/// request = covers.requestCoverImage(for: take.url, maximumSize: PixelSize(width: 320, height: 320)) { result in
///     DispatchQueue.main.async { cell.show(result) }
/// }
/// // didEndDisplaying / prepareForReuse:
/// request?.cancel()
/// ```
///
/// Guarantees: each request's completion is called exactly once, with the cover, a
/// ``ThumbnailError``, or `.cancelled`. A cover already cached is delivered synchronously,
/// before ``requestCoverImage(for:maximumSize:completion:)`` returns, on the caller's thread (a
/// displayed cell shows it in the same pass, no flicker), and so is the error for a file that
/// does not exist (or a URL that is not a file URL, or a request already cancelled); otherwise
/// on a background thread. A request cancelled before its completion is called gets `.cancelled`,
/// even when its decode has already finished (only a completion already being called when
/// ``CoverRequest/cancel()`` runs gets the cover).
/// Requests for the same file version and size while one is decoding join it. Pending decodes
/// start newest first (the cells just scrolled into view), at most ``maximumConcurrency`` at
/// once, through the scheduler of the service's generator (the one every cover API goes
/// through). A decode whose requests are all cancelled stops at its next packet, or, when it has
/// not started yet, never starts. Options that cannot be right (a negative size) are refused with
/// `.invalidArgument`, synchronously, before anything is queued.
public final class CoverService: Sendable {
    /// The cache the service fills and reads.
    public let cache: CoverCache
    /// Everything but the size, for every cover (the size comes with each request).
    public let options: CoverOptions
    /// The most decodes running at once.
    public let maximumConcurrency: Int
    private let generator: CoverGenerator
    /// The service's share of the generator's scheduler: its limit, newest first.
    private let share: DecodeScheduler.Group
    private let state = LockedValue(State())

    private typealias Completion = @Sendable (Result<CoverImage, ThumbnailError>) -> Void

    /// A request waiting for a job: its completion, and its own token (not the job's), looked at
    /// again when the result is delivered.
    private struct Waiter: Sendable {
        var completion: Completion
        var requestToken: CancellationToken

        /// Calls the completion with `result`, or with `.cancelled` when the request was cancelled
        /// after the job took it off the waiting list (its cancel handler then found nothing to drop).
        func deliver(_ result: Result<CoverImage, ThumbnailError>, url: URL) {
            guard !requestToken.isCancelled else {
                return completion(.failure(ThumbnailError(.cancelled, reason: "\(url.path): cancelled")))
            }
            completion(result)
        }
    }

    /// One decode and the requests waiting for it.
    private struct Job: Sendable {
        var id: Int
        var url: URL
        var key: CoverCache.Key
        var options: ValidatedCoverOptions
        var token = CancellationToken()
        var waiters: [Int: Waiter] = [:]
    }

    private struct State: Sendable {
        /// Jobs that requests can still join, waiting for the scheduler or running.
        var jobs: [CoverCache.Key: Job] = [:]
        var nextID = 0
        #if THUMBNAILS_TEST_HOOKS
            /// Decodes started since the service was made (tests check that requests share them).
            var decodes = 0
        #endif

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    /// A service with its own generator.
    ///
    /// - Parameters:
    ///   - cache: where covers are kept; 64 MB by default (about 390 covers of 320x180).
    ///   - options: how covers are taken; by default the first frame that is not dark, as a
    ///     cover should be.
    ///   - maximumConcurrency: decodes running at once; the active processor count by default.
    public init(
        cache: CoverCache = CoverCache(capacity: 64 << 20),
        options: CoverOptions = CoverOptions(skipsDarkFrames: true),
        maximumConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.cache = cache
        self.options = options
        self.maximumConcurrency = max(1, maximumConcurrency)
        generator = CoverGenerator()
        share = DecodeScheduler.Group(limit: maximumConcurrency, order: .newestFirst)
    }

    #if THUMBNAILS_TEST_HOOKS
        /// A service whose decodes go through `generator` (tests pass one with a check observer).
        /// Test hooks, like ``decodeCount``: compiled only with `THUMBNAILS_TEST_HOOKS`.
        init(generator: CoverGenerator, cache: CoverCache, options: CoverOptions, maximumConcurrency: Int) {
            self.cache = cache
            self.options = options
            self.maximumConcurrency = max(1, maximumConcurrency)
            self.generator = generator
            share = DecodeScheduler.Group(limit: maximumConcurrency, order: .newestFirst)
        }

        /// Decodes started so far (tests check that requests share them).
        var decodeCount: Int { state.withLock { $0.decodes } }
    #endif

    /// The options of a request for `maximumSize`.
    private func options(for maximumSize: PixelSize) -> CoverOptions {
        var options = options
        options.maximumSize = maximumSize
        return options
    }

    /// The cached cover for the file at `url` at `maximumSize`, without decoding: nil when it
    /// is not cached (or the file changed since).
    public func cachedCover(for url: URL, maximumSize: PixelSize) -> CoverImage? {
        cache.cover(for: url, options: options(for: maximumSize))
    }

    /// Asks for the cover of the file at `url`, fitting `maximumSize`, and calls `completion`
    /// exactly once (see the type's guarantees).
    ///
    /// - Returns: the request, to ``CoverRequest/cancel()`` when the cell goes away.
    @discardableResult
    public func requestCoverImage(
        for url: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, ThumbnailError>) -> Void
    ) -> CoverRequest {
        let request = CoverRequest()
        enqueue(url: url, maximumSize: maximumSize, request: request, completion: completion)
        return request
    }

    /// The cover of the file at `url`, fitting `maximumSize`: from the cache, or decoded (sharing
    /// a decode already running for it).
    ///
    /// - Throws: `CancellationError` when the task is cancelled (or ``cancelAll()`` runs)
    ///   first, otherwise a ``ThumbnailError`` as ``CoverGenerator/makeCover(for:options:)``.
    public func cover(for url: URL, maximumSize: PixelSize) async throws -> CoverImage {
        let request = CoverRequest()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<CoverImage, ThumbnailError>, Never>) in
                enqueue(url: url, maximumSize: maximumSize, request: request) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            request.cancel()
        }
        switch result {
        case .success(let image): return image
        case .failure(let error) where error.kind == .cancelled: throw CancellationError()
        case .failure(let error): throw error
        }
    }

    /// Cancels every request made so far: their completions get `.cancelled` now, and running
    /// decodes stop at their next packet. Later requests run normally.
    public func cancelAll() {
        let (waiters, tokens) = state.withLock { state -> ([(Completion, URL)], [CancellationToken]) in
            var waiters: [(Completion, URL)] = []
            var tokens: [CancellationToken] = []
            for job in state.jobs.values {
                waiters.append(contentsOf: job.waiters.values.map { ($0.completion, job.url) })
                job.token.cancel()
                tokens.append(job.token)
            }
            state.jobs.removeAll()
            return (waiters, tokens)
        }
        // Jobs still waiting for the scheduler never start; their `dropped` finds no job to answer.
        for token in tokens { generator.scheduler.withdraw(token) }
        for (waiter, url) in waiters {
            waiter(.failure(ThumbnailError(.cancelled, reason: "\(url.path): cancelled")))
        }
    }

    // MARK: Scheduling

    private func enqueue(url: URL, maximumSize: PixelSize, request: CoverRequest, completion: @escaping Completion) {
        let options: ValidatedCoverOptions
        do throws(ThumbnailError) {
            options = try ValidatedCoverOptions(self.options(for: maximumSize))
        } catch {
            return completion(.failure(error))
        }
        let cancelled = ThumbnailError(.cancelled, reason: "\(url.path): cancelled")
        guard !request.isCancelled else { return completion(.failure(cancelled)) }
        guard let key = cache.key(for: url, options: options.options) else {
            // No file (or not a file URL): let the generator say precisely what is wrong.
            return completion(
                Result { () throws(ThumbnailError) in
                    try generator.blockingCover(forFileAt: CoverGenerator.path(of: url), options: options)
                })
        }
        if let image = cache.cover(for: key) {
            return completion(.success(image))
        }
        let (waiterID, created) = state.withLock { state -> (Int, Job?) in
            let waiterID = state.makeID()
            var created: Job?
            if state.jobs[key] == nil {
                let job = Job(id: state.makeID(), url: url, key: key, options: options)
                state.jobs[key] = job
                created = job
            }
            state.jobs[key]?.waiters[waiterID] = Waiter(completion: completion, requestToken: request.token)
            return (waiterID, created)
        }
        let installed = request.setCancelHandler { [weak self] in
            self?.cancelWaiter(waiterID, of: key, url: url)
        }
        if !installed { cancelWaiter(waiterID, of: key, url: url) }
        if let created { submit(created) }
    }

    /// Hands a new job to the scheduler: it runs when the service's group is admitted a slot
    /// (newest first), or is dropped unstarted once every request for it is cancelled.
    private func submit(_ job: Job) {
        generator.scheduler.submit(group: share, token: job.token) { cancellation in
            #if THUMBNAILS_TEST_HOOKS
                self.state.withLock { $0.decodes += 1 }
            #endif
            let result = Result { () throws(ThumbnailError) in
                // The key's `stat` stands for the file's: one `stat` per cover.
                try self.generator.makeCover(
                    for: job.url, options: job.options, cancellation: cancellation, identity: job.key.identity)
            }
            // Delivered once the decode's slot is free: a completion may ask for more covers.
            return { self.finish(job, with: result) }
        } dropped: {
            self.finish(job, with: .failure(ThumbnailError(.cancelled, reason: "\(job.url.path): cancelled")))
        }
    }

    private func finish(_ job: Job, with result: Result<CoverImage, ThumbnailError>) {
        if case .success(let image) = result {
            cache.insert(image, for: job.key)
        }
        let waiters = state.withLock { state -> [Waiter] in
            guard state.jobs[job.key]?.id == job.id else { return [] }
            return state.jobs.removeValue(forKey: job.key).map { Array($0.waiters.values) } ?? []
        }
        // A waiter cancelled from here on is no longer in `state`: `deliver` answers it `.cancelled`.
        for waiter in waiters { waiter.deliver(result, url: job.url) }
    }

    /// Drops one waiting request: its completion gets `.cancelled`; a job left without waiters
    /// is withdrawn from the scheduler (waiting: it never starts) or stopped (running).
    private func cancelWaiter(_ waiterID: Int, of key: CoverCache.Key, url: URL) {
        let (completion, abandoned) = state.withLock { state -> (Completion?, CancellationToken?) in
            guard var job = state.jobs[key], let waiter = job.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            if job.waiters.isEmpty {
                job.token.cancel()
                state.jobs[key] = nil
                return (waiter.completion, job.token)
            }
            state.jobs[key] = job
            return (waiter.completion, nil)
        }
        if let abandoned { generator.scheduler.withdraw(abandoned) }
        completion?(.failure(ThumbnailError(.cancelled, reason: "\(url.path): cancelled")))
    }
}
