import Foundation
import MediaCore

/// Composes plans into MP4 files: H.264 High 4:2:0 (libx264) and AAC stereo 48 kHz, `+faststart`.
///
/// Guarantees:
/// - **Atomic output.** The video is written to a hidden temporary file beside the output and renamed over it only
///   once complete: on any failure, cancellation included, nothing is left at the output path (an existing file
///   there is untouched) and the temporary file is removed.
/// - **Bad takes fail first.** Every take is opened before anything is written; a missing, unreadable or corrupt
///   take, or one with neither video nor audio, fails the composition with a one-line
///   ``CompositionError`` naming its canvas index and file.
/// - **Bounded memory.** Each take decodes on a thread of its own at most three output frames ahead of the
///   composition, holding its decoder's frames, two decoded frames, five pictures of its tile's size and one chunk of
///   samples; memory does not grow with the takes' length.
/// - **Timeline.** The output starts at the earliest take start (``CompositionPlan/timelineOrigin``); each take
///   plays from its own start; a take that ends early holds its last frame until the end, and its sound stops; a take
///   without video leaves its tile on the background; a take without audio adds silence.
///
/// A composer is a value; compositions run on threads of their own (never the caller's cooperative pool). On Linux
/// each take's decoding thread lowers its own priority (nice +5, which there changes that thread alone, never the
/// process or the caller), so it decodes with the time the encoder leaves.
public struct Composer: Sendable {
    /// Threads libx264 uses (0: its own choice, about 1.5 per core).
    public var encoderThreads: Int

    /// A composer whose encoder picks its thread count.
    public init(encoderThreads: Int = 0) {
        self.encoderThreads = encoderThreads
    }

    /// Composes `plan` into `output`.
    ///
    /// - Parameters:
    ///   - plan: what to compose (``CompositionPlan/validated()`` is applied first).
    ///   - output: the MP4 to write; replaced only once the new one is complete.
    ///   - progress: called after every output frame, on the composition's thread.
    /// - Returns: what was written.
    /// - Throws: ``CompositionError``: `.plan` for a plan ``CompositionPlan/validated()`` refuses, `.take` for a bad
    ///   take, `.output` when the file cannot be written, `.encoding` when FFmpeg lacks an encoder, `.cancelled` when
    ///   the task was cancelled. Nothing is left at `output` in every case.
    public func compose(
        _ plan: CompositionPlan, to output: URL, progress: (@Sendable (CompositionProgress) -> Void)? = nil
    ) async throws(CompositionError) -> CompositionResult {
        let flag = CancellationToken()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<CompositionResult, CompositionError>, Never>) in
                start(plan, to: output, flag: flag, progress: progress) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            flag.cancel()
        }
        return try result.get()
    }

    /// Composes `plan` into `output` on a thread of its own and calls `completion` once, on that thread, with the
    /// result (the errors as in ``compose(_:to:progress:)``).
    ///
    /// - Parameters:
    ///   - plan: what to compose.
    ///   - output: the MP4 to write; replaced only once the new one is complete.
    ///   - progress: called after every output frame, on the composition's thread.
    ///   - completion: called once with what was written or why nothing was.
    /// - Returns: a handle whose ``CompositionJob/cancel()`` stops the composition (the completion then gets
    ///   `.cancelled`, unless it had already finished).
    @discardableResult
    public func compose(
        _ plan: CompositionPlan, to output: URL, progress: (@Sendable (CompositionProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<CompositionResult, CompositionError>) -> Void
    ) -> CompositionJob {
        let flag = CancellationToken()
        start(plan, to: output, flag: flag, progress: progress, completion: completion)
        return CompositionJob(flag: flag)
    }

    private func start(
        _ plan: CompositionPlan, to output: URL, flag: CancellationToken,
        progress: (@Sendable (CompositionProgress) -> Void)?,
        completion: @escaping @Sendable (Result<CompositionResult, CompositionError>) -> Void
    ) {
        let threads = encoderThreads
        let thread = Thread {
            let result = Result { () throws(CompositionError) in
                try CompositionEngine.run(
                    plan, to: output, threadCount: threads, cancellation: flag, progress: progress)
            }
            completion(result)
        }
        thread.name = "Composition"
        thread.start()
    }
}

/// A composition started with a completion handler.
public struct CompositionJob: Sendable {
    let flag: CancellationToken

    /// Stops the composition at its next frame (or its next blocking read); nothing is left at the output. Idempotent.
    public func cancel() {
        flag.cancel()
    }
}
