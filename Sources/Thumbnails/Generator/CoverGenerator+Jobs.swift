import MediaCore

/// A job of ``CoverGenerator/submitJobs(count:concurrency:run:dropped:)`` that the generator admitted: while it runs,
/// it holds one of the generator's slots (``CoverGenerator/maximumConcurrency``), on a thread the generator started.
public struct AdmittedCoverJob: Sendable {
    /// The job's position among those submitted together (0 up).
    public let index: Int
    private let generator: CoverGenerator
    private let cancellation: DecodeScheduler.Cancellation

    init(index: Int, generator: CoverGenerator, cancellation: DecodeScheduler.Cancellation) {
        self.index = index
        self.generator = generator
        self.cancellation = cancellation
    }

    /// Takes the cover of the file at `path` on the calling thread, in this job's slot: as
    /// ``CoverGenerator/makeCover(forFileAt:options:)``, without waiting for a turn. Call it only from the job's
    /// `run` closure (the slot is freed when `run` returns).
    ///
    /// - Throws: ``ThumbnailError`` as ``CoverGenerator/makeCover(for:options:)``; `.cancelled` ("PATH: cancelled") when
    ///   ``CoverGenerator/cancelAll()`` was called since the job was submitted (at once, or at the next packet).
    public func makeCover(forFileAt path: FileSystemPath, options: CoverOptions) throws(ThumbnailError) -> CoverImage {
        try generator.makeCover(forFileAt: path, options: ValidatedCoverOptions(options), cancellation: cancellation)
    }
}

extension CoverGenerator {
    /// Submits `count` jobs of the caller's (a batch: each opens its output, makes its cover with
    /// ``AdmittedCoverJob/makeCover(forFileAt:options:)`` and writes it) and returns at once.
    ///
    /// The jobs are started in their order (index 0 first), each on a thread of the generator's, at most `concurrency`
    /// of them at once and never more than ``maximumConcurrency`` together with the generator's other covers. Each job
    /// gets exactly one of its two closures called: `run` when it is admitted, or `dropped` (with its index, on the
    /// cancelling thread) when ``cancelAll()`` stops it before it started. What `run` returns runs once the job's slot
    /// is free (the place to report: it may itself wait for another cover of this generator).
    ///
    /// - Parameters:
    ///   - count: how many jobs (none for 0).
    ///   - concurrency: the most of them running at once (at least 1).
    ///   - run: the work of an admitted job; returns what to run once its slot is free.
    ///   - dropped: called instead of `run` for a job stopped before it started.
    public func submitJobs(
        count: Int,
        concurrency: Int,
        run: @escaping @Sendable (AdmittedCoverJob) -> @Sendable () -> Void,
        dropped: @escaping @Sendable (_ index: Int) -> Void
    ) {
        let group = DecodeScheduler.Group(limit: concurrency)
        for index in 0..<max(0, count) {
            scheduler.submit(group: group) { cancellation in
                run(AdmittedCoverJob(index: index, generator: self, cancellation: cancellation))
            } dropped: {
                dropped(index)
            }
        }
    }
}
