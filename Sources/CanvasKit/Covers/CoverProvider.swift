import Foundation
import Locking
@_exported import Pixels

/// A cover request in flight, as the view-model that started it sees it: something it cancels when its cell no longer
/// needs the cover. (Thumbnails' `CoverRequest` class is one, through the CanvasCovers module.)
public protocol CancellableCoverRequest: AnyObject, Sendable {
    /// Stops the request: its completion is not called afterwards (or, if it is already running, its result is
    /// ignored by the requester). Idempotent; callable from any thread.
    func cancel()
}

/// Where cell view-models get covers from: an app's own (`AVAssetImageGenerator` on iOS, the Apple layer's
/// `AssetCoverProvider`), `CoverService` (module Thumbnails, a provider once `import CanvasCovers` is written), or a
/// test's fake.
///
/// One requirement, ``cover(for:maximumSize:)``, `async throws`: an empty conformance does not compile. Cancellation is
/// the task's: when the task awaiting the cover is cancelled, the provider should stop and throw `CancellationError`.
/// A provider whose API is a completion handler conforms to ``CompletionCoverProvider`` instead, which derives this
/// requirement from its own one.
///
/// Cell view-models ask for covers through ``loadCover(for:maximumSize:completion:)``, which every provider has.
///
/// ```swift
/// import CanvasKit
/// import Foundation
///
/// /// A provider with an async API needs nothing else: no request class, no `@unchecked Sendable`.
/// final class GrayCovers: CoverProvider {
///     func cover(for videoURL: URL, maximumSize: PixelSize) async throws -> CoverImage {
///         try Task.checkCancellation()
///         return try CoverImage(
///             width: 2, height: 2, bytesPerRow: 6, pixelFormat: .rgb, pixels: [UInt8](repeating: 128, count: 12))
///     }
/// }
///
/// let viewModel = CanvasCellViewModel(coverProvider: GrayCovers())
/// ```
public protocol CoverProvider: AnyObject, Sendable {
    /// The cover of the take at `videoURL`, fitted in `maximumSize` (keeping its aspect ratio; 0 in a dimension means
    /// no limit on it, as for Thumbnails). The cover is a `CoverImage` in either pixel format, rows possibly padded:
    /// Core Graphics reads both layouts as they are.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first; otherwise the error that prevented the
    ///   cover (for example a missing or unreadable file).
    func cover(for videoURL: URL, maximumSize: PixelSize) async throws -> CoverImage
}

/// A cover provider whose API is a completion handler and a request to cancel (Thumbnails' `CoverService` through
/// CanvasCovers, a provider with a synchronous cache): its one requirement is
/// ``requestCover(for:maximumSize:completion:)``, and it gets ``CoverProvider/cover(for:maximumSize:)`` from it.
///
/// Cell view-models call its request directly (``CoverProvider/loadCover(for:maximumSize:completion:)``), so a cover
/// it delivers before `requestCover` returns (a cache hit) is on screen in the same pass. An empty conformance does
/// not compile: nothing provides `requestCover`.
public protocol CompletionCoverProvider: CoverProvider {
    /// Starts loading the cover of the take at `videoURL`, fitted in `maximumSize` (as
    /// ``CoverProvider/cover(for:maximumSize:)``), and returns at once.
    ///
    /// `completion` is called at most once, on any thread (possibly before this returns), with the cover or the error
    /// that prevented it (for example a missing or unreadable file); it is not called after the returned request is
    /// cancelled.
    func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest
}

extension CompletionCoverProvider {
    /// The async form over ``requestCover(for:maximumSize:completion:)``: starts a request and waits for its
    /// completion; when the task is cancelled first, cancels the request and throws `CancellationError` at once.
    public func cover(for videoURL: URL, maximumSize: PixelSize) async throws -> CoverImage {
        let waiter = CoverWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.wait(with: continuation) {
                    requestCover(for: videoURL, maximumSize: maximumSize) { waiter.finish(with: $0) }
                }
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

extension CoverProvider {
    /// Starts loading the cover of the take at `videoURL`, fitted in `maximumSize`, and returns at once: what cell
    /// view-models call. Not a requirement: every provider has it.
    ///
    /// A ``CompletionCoverProvider`` is asked through its own ``CompletionCoverProvider/requestCover(for:maximumSize:completion:)``
    /// (a cover it has cached may arrive before this returns). Any other provider's
    /// ``cover(for:maximumSize:)`` runs in a task, and cancelling the returned request cancels that task.
    ///
    /// `completion` is called at most once, on any thread, and never after the returned request is cancelled.
    public func loadCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest {
        if let provider = self as? any CompletionCoverProvider {
            return provider.requestCover(for: videoURL, maximumSize: maximumSize, completion: completion)
        }
        let request = TaskCoverRequest(completion: completion)
        request.start { try await self.cover(for: videoURL, maximumSize: maximumSize) }
        return request
    }
}

/// The request of the completion form over an async provider: a task, and the completion called once unless the
/// request was cancelled.
private final class TaskCoverRequest: CancellableCoverRequest {
    private struct State {
        var completion: (@Sendable (Result<CoverImage, any Error>) -> Void)?
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    private let state: LockedValue<State>

    init(completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void) {
        state = LockedValue(State(completion: completion))
    }

    func start(_ operation: @escaping @Sendable () async throws -> CoverImage) {
        let task = Task {
            let result: Result<CoverImage, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            // Taken under the lock: a cancel() after this point finds no completion, one before it leaves none.
            self.state.withLock { state -> (@Sendable (Result<CoverImage, any Error>) -> Void)? in
                defer { state.completion = nil }
                return state.completion
            }?(result)
        }
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.isCancelled = true
            state.completion = nil
            return state.task
        }
        task?.cancel()
    }
}

/// The continuation of the async form over a completion-handler provider, resumed exactly once: by the completion, or
/// by the task's cancellation (which also cancels the request), whichever comes first.
private final class CoverWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<CoverImage, any Error>?
        var request: (any CancellableCoverRequest)?
        var isCancelled = false
    }

    private let state = LockedValue(State())

    /// Keeps `continuation` and starts the request (unless the task was cancelled already).
    func wait(
        with continuation: CheckedContinuation<CoverImage, any Error>,
        starting start: () -> any CancellableCoverRequest
    ) {
        let cancelled = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            state.continuation = continuation
            return false
        }
        if cancelled { return continuation.resume(throwing: CancellationError()) }
        // The request may complete (even synchronously, from a cache) before it is stored; that is fine: finish()
        // takes the continuation, and a later cancel() cancels a finished request, which is harmless.
        let request = start()
        let cancelledMeanwhile = state.withLock { state -> Bool in
            state.request = request
            return state.isCancelled
        }
        if cancelledMeanwhile { request.cancel() }
    }

    func finish(with result: Result<CoverImage, any Error>) {
        state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }?.resume(with: result)
    }

    func cancel() {
        let (continuation, request) = state.withLock { state in
            state.isCancelled = true
            defer { state.continuation = nil }
            return (state.continuation, state.request)
        }
        request?.cancel()
        continuation?.resume(throwing: CancellationError())
    }
}
