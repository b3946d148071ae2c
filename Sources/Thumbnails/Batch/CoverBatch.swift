import Dispatch
import Foundation
import Synchronization

/// One cover to make and write in a ``CoverBatch``.
public struct CoverJob: Sendable, Hashable {
    /// The video.
    public var input: URL
    /// Where its cover goes (replaced atomically when it exists).
    public var output: URL

    /// A job writing the cover of `input` to `output`.
    public init(input: URL, output: URL) {
        self.input = input
        self.output = output
    }
}

/// What became of one ``CoverJob``: the written cover's size and time, or why nothing was written.
public struct CoverJobResult: Sendable {
    /// The job's position in the batch.
    public let index: Int
    /// The job.
    public let job: CoverJob
    /// The written cover (its pixels already released), or the error; on error nothing was
    /// written at ``CoverJob/output`` (a file already there is left as it was).
    public let result: Result<WrittenCover, ThumbnailError>
}

/// A cover that was written: what a report needs, without the pixels.
public struct WrittenCover: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The time of the frame in seconds from the start of the video.
    public let actualTime: Double
    /// Why the frame may not be what was asked for (a file cut short); empty when it is.
    public let warnings: [String]
}

/// Makes and writes many covers in one process: decoding, scaling, encoding and writing all run
/// in parallel, `concurrency` inputs at a time, each worker on a thread of its own.
///
/// Every job yields exactly one result; a failure never stops the others. Outputs are written
/// atomically (see ``CoverImage/write(to:as:)``), so a failed job leaves no empty or partial
/// file behind.
public enum CoverBatch {
    /// The most jobs ``run(_:options:format:concurrency:generator:report:)`` runs at once,
    /// whatever `concurrency` asks: each running job holds a decoder and its frames (tens of MB
    /// for 4K), so beyond this memory grows and nothing gets faster.
    public static let maximumConcurrency = 64

    /// Runs `jobs` and calls `report` once per job as it finishes, on the worker thread that ran it
    /// (so `report` must be thread-safe; it may be called by several threads at once). Returns when
    /// every job has finished or `generator`'s ``CoverGenerator/cancelAll()`` stopped them (each
    /// cancelled job is reported with `.cancelled`).
    ///
    /// - Parameters:
    ///   - jobs: the inputs and outputs.
    ///   - options: how to take each cover.
    ///   - format: the image format written.
    ///   - concurrency: how many jobs run at once (at least 1, at most ``maximumConcurrency``),
    ///     each on a thread of its own, even beyond the number of cores (inputs on a slow disk).
    ///   - generator: the generator to use (share one to cancel the batch with `cancelAll()`).
    ///   - report: receives each result.
    public static func run(
        _ jobs: [CoverJob],
        options: CoverOptions,
        format: CoverImageFormat,
        concurrency: Int,
        generator: CoverGenerator = CoverGenerator(),
        report: @escaping @Sendable (CoverJobResult) -> Void
    ) {
        let next = JobCounter()
        let workers = max(1, min(concurrency, jobs.count, maximumConcurrency))
        // One thread per worker rather than `DispatchQueue.concurrentPerform`, whose pool is sized
        // by the cores: a `concurrency` beyond them (inputs on a slow disk or a network share)
        // would silently run no more jobs at once than there are cores.
        let finished = DispatchGroup()
        for _ in 0..<workers {
            finished.enter()
            Thread {
                while let index = next.take(below: jobs.count) {
                    let job = jobs[index]
                    let result = Result { () throws(ThumbnailError) -> WrittenCover in
                        let cover = try generator.makeCover(for: job.input, options: options)
                        try cover.write(to: job.output, as: format)
                        return WrittenCover(
                            width: cover.width, height: cover.height, actualTime: cover.actualTime,
                            warnings: cover.warnings)
                    }
                    report(CoverJobResult(index: index, job: job, result: result))
                }
                finished.leave()
            }.start()
        }
        finished.wait()
    }
}

/// The next job index, shared by a batch's worker threads.
private final class JobCounter: Sendable {
    private let next = Atomic<Int>(0)

    /// Takes the next index, or nil once all `count` are taken.
    func take(below count: Int) -> Int? {
        let index = next.add(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}
