import Dispatch
import Foundation
import MediaCore
import Synchronization
import Thumbnails

/// One cover to make and write in a ``CoverBatch``.
public struct CoverJob: Sendable, Hashable {
    /// The video.
    public var input: FileSystemPath
    /// Where its cover goes (replaced atomically when it exists).
    public var output: FileSystemPath

    /// A job writing the cover of `input` to `output`, both paths held as bytes.
    public init(input: FileSystemPath, output: FileSystemPath) {
        self.input = input
        self.output = output
    }

    /// A job writing the cover of the file `input` to the file `output`.
    public init(input: URL, output: URL) {
        self.init(input: FileSystemPath(input), output: FileSystemPath(output))
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
    public let result: Result<WrittenCover, CoverJobError>

    /// A result for the job at `index`.
    public init(index: Int, job: CoverJob, result: Result<WrittenCover, CoverJobError>) {
        self.index = index
        self.job = job
        self.result = result
    }
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

    /// What a report says of a cover `width` x `height` taken at `actualTime`.
    public init(width: Int, height: Int, actualTime: Double, warnings: [String] = []) {
        self.width = width
        self.height = height
        self.actualTime = actualTime
        self.warnings = warnings
    }
}

/// Makes and writes many covers: decoding, scaling, encoding and writing all run in parallel,
/// `concurrency` inputs at a time, on threads of this process or in worker processes.
///
/// Every job yields exactly one result; a failure never stops the others. Outputs are written
/// atomically (see `CoverImage.write(toFileAt:as:)`), so a failed job leaves no empty or
/// partial file behind. Before any job runs, each output folder is cleared of the temporary files
/// that earlier writers killed mid-write left there (only those provably abandoned: see
/// `CoverImage.write(toFileAt:as:)`).
public enum CoverBatch {
    /// The most jobs a batch runs at once, whatever `concurrency` asks: each running job holds a
    /// decoder and its frames (tens of MB for 4K), so beyond this memory grows and nothing gets
    /// faster.
    public static let maximumConcurrency = 64

    /// How long a worker process may take over one input before it is stopped and the input
    /// reported as `.timedOut`: 60 s. A cover takes well under a second (a 4K frame about 80 ms;
    /// an exact frame deep into a long keyframe interval a few seconds), so only a read that
    /// never returns or a decoder stuck in a loop reaches it, yet an input on a slow disk or
    /// network share still has ample time.
    public static let defaultTimeout: Duration = .seconds(60)

    /// Runs `jobs` on threads of this process and calls `report` once per job as it finishes, on
    /// the thread that ran it (so `report` must be thread-safe; it may be called by several
    /// threads at once). Returns when every job has finished or `generator`'s
    /// ``CoverGenerator/cancelAll()`` stopped them: each job it stopped, running or not started
    /// yet, is reported with `.cancelled` (one not started yet on the cancelling thread).
    ///
    /// The jobs go through `generator` (``CoverGenerator/submitJobs(count:concurrency:run:dropped:)``), started in their
    /// order, at most `concurrency` at once, and never more than the generator's
    /// ``CoverGenerator/maximumConcurrency`` together with its other covers. Options that cannot be
    /// right fail every job with the same one-line `.invalidArgument`, before anything is opened.
    ///
    /// A crash inside FFmpeg (a hostile file) takes the whole process down with it; use
    /// ``run(_:concurrency:workers:timeout:report:)`` to keep the other inputs.
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
        do throws(ThumbnailError) {
            try options.validate()
        } catch {
            for (index, job) in jobs.enumerated() {
                report(CoverJobResult(index: index, job: job, result: .failure(CoverJobError(error))))
            }
            return
        }
        removeAbandonedTemporaryFiles(of: jobs)
        let finished = DispatchGroup()
        for _ in jobs { finished.enter() }
        generator.submitJobs(count: jobs.count, concurrency: laneCount(concurrency, jobs: jobs)) { admitted in
            let index = admitted.index
            let job = jobs[index]
            let result = write(job, as: format) { () throws(ThumbnailError) in
                try admitted.makeCover(forFileAt: job.input, options: options)
            }.mapError(CoverJobError.init)
            // Reported once the job's slot is free.
            return {
                report(CoverJobResult(index: index, job: job, result: result))
                finished.leave()
            }
        } dropped: { index in
            let job = jobs[index]
            let cancelled = CoverJobError(.cover(.cancelled), reason: "\(job.input.escaped): cancelled")
            report(CoverJobResult(index: index, job: job, result: .failure(cancelled)))
            finished.leave()
        }
        finished.wait()
    }

    /// Runs `jobs` in worker processes, `concurrency` at once, each input decoded in a process
    /// apart from this one, and calls `report` once per job as it finishes (on one of this
    /// process's threads, possibly several at once).
    ///
    /// A worker that dies while it has an input (a crash inside FFmpeg: `SIGSEGV`, `SIGABRT`, a
    /// kill) costs that input alone: it is reported as `.crashed` with a one-line reason
    /// naming the signal ("crashed while making its cover (signal 11: Segmentation fault)"), the
    /// temporary file it may have left is removed, a fresh worker takes the next input, and
    /// every other cover is written.
    ///
    /// A worker that gives no answer for an input within `timeout` (counted from the moment it
    /// starts that input: when its previous answer arrived, or when it was started) is killed
    /// (`SIGKILL`) and waited for; the input is reported as `.timedOut` ("INPUT: no cover within
    /// 60 s (a read or decode that never ends); stopped"), the temporary file it may have left is
    /// removed, and a fresh worker takes the next input, as after a crash.
    ///
    /// Each worker is `workers` started anew (see ``CoverWorkerCommand``): a program that calls
    /// ``CoverWorker/serve(options:format:)`` with the options and format the batch is meant to
    /// use; or, for the first workers, when `workers` says what they serve and this process has a
    /// single thread when the batch starts, a fork of this process that serves them (on Linux;
    /// see ``CoverWorkerCommand``). The batch sends each worker its jobs over a socket, two at a
    /// time while at least one job per worker is left (the next one waits in the socket while the
    /// worker makes the current cover, so the worker never waits for this process; the last jobs
    /// go to whichever worker is free), and the worker answers each with its result. A job queued behind one
    /// a worker crashed on never started, and goes to the fresh worker.
    ///
    /// - Parameters:
    ///   - jobs: the inputs and outputs.
    ///   - concurrency: how many workers run at once (at least 1, at most ``maximumConcurrency``
    ///     and the number of jobs).
    ///   - workers: how to start a worker.
    ///   - timeout: the most time a worker may take over one input (nil: no limit).
    ///   - started: called once on the calling thread when the first workers are forked (or none will be), before
    ///     any lane starts: the place for a tool to start threads of its own, such as its signal handling's (a fork
    ///     needs this process to have a single thread).
    ///   - report: receives each result.
    public static func run(
        _ jobs: [CoverJob],
        concurrency: Int,
        workers: CoverWorkerCommand,
        timeout: Duration? = CoverBatch.defaultTimeout,
        started: () -> Void = {},
        report: @escaping @Sendable (CoverJobResult) -> Void
    ) {
        let report = prepareWorkerBatch(jobs, report: report)
        // The first workers, forked from this process while it has one thread (when the command says what they serve):
        // a copy starts in a millisecond, a new process takes tens. One per lane; a lane without one starts its own.
        let forked = WorkerProcess.forkFirst(count: laneCount(concurrency, jobs: jobs), serving: workers.serving)
        started()
        runWorkerLanes(count: concurrency, jobs: jobs) { lane, next in
            let first = lane < forked.count ? forked[lane] : nil
            var worker = first.map(WorkerProcess.init(adopting:))
            // Sent to the worker and not answered yet, oldest first; and taken back from a worker
            // that died (the jobs queued behind the one it crashed on), to be sent again first.
            var inFlight: [Int] = []
            var retry: [Int] = []
            // When the worker started its oldest job in flight: when it was started, or when it
            // answered the job before.
            var started = first?.started ?? ContinuousClock.now
            while true {
                // Two jobs in flight: the worker finds its next job waiting when it answers (no ping-pong with this
                // thread). The second only while at least one job per lane is left: the last jobs go to whichever
                // worker is free, not behind another worker's cover.
                while inFlight.count < 2, let index = retry.isEmpty ? next(inFlight.isEmpty) : retry.removeFirst() {
                    if worker == nil {
                        do throws(ThumbnailError) {
                            worker = try WorkerProcess(command: workers)
                            started = .now
                        } catch {
                            let failure = CoverJobError(error)
                            report(CoverJobResult(index: index, job: jobs[index], result: .failure(failure)))
                            continue
                        }
                    }
                    inFlight.append(index)
                    // A failed send shows as a death at the next receive.
                    if worker?.send(jobs[index]) != true { break }
                }
                guard let oldest = inFlight.first, let running = worker else { break }
                let job = jobs[oldest]
                let failure: CoverJobError
                switch running.receive(before: timeout.map { started + $0 }) {
                case .result(let result):
                    started = .now
                    inFlight.removeFirst()
                    report(CoverJobResult(index: oldest, job: job, result: result.mapError(CoverJobError.init)))
                    continue
                case .died:
                    // The worker died on its oldest job; the ones queued behind it never started.
                    failure = CoverJobError(.crashed, reason: "\(job.input.escaped): \(running.death())")
                case .timedOut:
                    running.stop()
                    failure = .timedOut(job.input, after: timeout ?? .zero)
                }
                worker = nil
                // Its temporary file, if it was writing, is provably abandoned now.
                AtomicOutput.removeAbandoned(in: job.output.directory)
                report(CoverJobResult(index: oldest, job: job, result: .failure(failure)))
                retry = Array(inFlight.dropFirst()) + retry
                inFlight = []
            }
            worker?.finish()
        }
    }

    /// Makes one cover with `cover` and writes it. The cover's file is started first, so an output that cannot be
    /// written fails before the input is decoded, and a termination signal while the cover is made finds the
    /// temporary file to remove.
    static func write(
        _ job: CoverJob,
        as format: CoverImageFormat,
        cover: () throws(ThumbnailError) -> CoverImage
    ) -> Result<WrittenCover, ThumbnailError> {
        Result { () throws(ThumbnailError) -> WrittenCover in
            let file = try namingTheInput(job) { () throws(ThumbnailError) in
                try CoverFile(at: job.output, neverReplacing: [job.input])
            }
            let cover = try cover()
            try namingTheInput(job) { () throws(ThumbnailError) in try file.write(cover, as: format) }
            return WrittenCover(
                width: cover.width, height: cover.height, actualTime: cover.actualTime, warnings: cover.warnings)
        }
    }

    /// Runs a step of writing `job`'s output; a `.writeFailed` reason (which names the output) then names the input
    /// too: "INPUT: OUTPUT: cannot write: No space left on device".
    private static func namingTheInput<Value>(
        _ job: CoverJob, _ step: () throws(ThumbnailError) -> Value
    ) throws(ThumbnailError) -> Value {
        do throws(ThumbnailError) {
            return try step()
        } catch {
            guard error.kind == .writeFailed else { throw error }
            throw ThumbnailError(.writeFailed, reason: "\(job.input.escaped): \(error.reason)")
        }
    }

    /// How many jobs run at once: `concurrency`, bounded by the jobs and ``maximumConcurrency``.
    private static func laneCount(_ concurrency: Int, jobs: [CoverJob]) -> Int {
        max(1, min(concurrency, jobs.count, maximumConcurrency))
    }

    /// Runs `lane` ``laneCount(_:jobs:)`` times, each on a thread of its own (a lane only talks to its worker
    /// process), each given its number (0 up) and a function that takes the next job index in order: for a lane's
    /// first job in flight (`true`) while any is left, for a second one only while at least one per lane is left (nil
    /// otherwise, and once all are taken). Returns when every lane has returned.
    private static func runWorkerLanes(
        count: Int,
        jobs: [CoverJob],
        lane: @escaping @Sendable (_ number: Int, _ next: (_ first: Bool) -> Int?) -> Void
    ) {
        let counter = JobCounter()
        let lanes = laneCount(count, jobs: jobs)
        let total = jobs.count
        let finished = DispatchGroup()
        for number in 0..<lanes {
            finished.enter()
            Thread {
                lane(number) { first in counter.take(below: total, leaving: first ? 0 : lanes - 1) }
                finished.leave()
            }.start()
        }
        finished.wait()
    }

    /// Prepares a batch in worker processes: clears its output folders of abandoned temporary files and notes them
    /// for ``abandon()``; returns `report` muted once the batch is abandoned (its workers were killed by ``abandon()``,
    /// they did not crash).
    private static func prepareWorkerBatch(
        _ jobs: [CoverJob], report: @escaping @Sendable (CoverJobResult) -> Void
    ) -> @Sendable (CoverJobResult) -> Void {
        removeAbandonedTemporaryFiles(of: jobs)
        RunningWorkers.note(folders: jobs.map(\.output.directory))
        return { result in
            if !RunningWorkers.isStopped { report(result) }
        }
    }

    /// Clears each output folder of the batch, once, of abandoned temporary files.
    private static func removeAbandonedTemporaryFiles(of jobs: [CoverJob]) {
        var folders: Set<FileSystemPath> = []
        for job in jobs where folders.insert(job.output.directory).inserted {
            AtomicOutput.removeAbandoned(in: job.output.directory)
        }
    }
}

/// The next job index, shared by a batch's worker threads.
private final class JobCounter: Sendable {
    private let next = Atomic<Int>(0)

    /// Takes the next index while more than `reserve` of the `count` are left untaken; nil
    /// otherwise.
    func take(below count: Int, leaving reserve: Int) -> Int? {
        var index = next.load(ordering: .relaxed)
        while count - index > reserve {
            let (exchanged, original) = next.compareExchange(
                expected: index, desired: index + 1, ordering: .relaxed)
            if exchanged { return index }
            index = original
        }
        return nil
    }
}
