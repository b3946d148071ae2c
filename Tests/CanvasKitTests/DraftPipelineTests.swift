import Foundation
import Locking
import SeededRandom
import Testing

@testable import CanvasKit

/// The decisions of a draft's writer and syncer (`DraftPipeline`), driven step by step in the orders threads can take
/// them, against a model of what the disk holds: nothing is reported durable that a power loss can lose, and every
/// waiter is answered.
@Suite("Drafts: writer and syncer")
struct DraftPipelineTests {
    /// What a power loss keeps, as far as the draft's promises go: the last compaction's board, and the journal's
    /// records after it that a sync put on the disk before anything in that journal was lost.
    struct Disk {
        var compacted: UInt64 = 0
        /// The journal's records since the last sync (in the page cache).
        var unsynced: [UInt64] = []
        var synced: Set<UInt64> = []
        /// Whether a failed sync lost part of this journal: nothing after it is read back.
        var broken = false
        /// Whether a failed write may have left part of a record at the journal's end: nothing after it is read back.
        var torn = false

        /// The last record of the prefix a power loss keeps.
        var kept: UInt64 {
            var last = compacted
            while synced.contains(last + 1) { last += 1 }
            return last
        }

        mutating func compact(through sequence: UInt64) {
            compacted = max(compacted, sequence)
            (unsynced, synced, broken, torn) = ([], [], false, false)
        }

        mutating func sync(failing: Bool) {
            if failing {
                broken = true
            } else if !broken {
                synced.formUnion(unsynced)
            }
            unsynced = []
        }
    }

    /// Where the writer and the syncer are: each step between two of them is one the other threads may come between.
    enum Step {
        case idle, take, sync
        case write(DraftPipeline.Batch)
        case finishWrite(DraftPipeline.Batch, Result<DraftWriter.Written, DraftError>)
        case syncing(DraftPipeline.Sync)
        case finishSync(DraftPipeline.Sync, DraftError?)
    }

    final class Answers: Sendable {
        let values = LockedValue<[Int: DraftError?]>([:])
    }

    static let failure = DraftError.io(path: "/x", operation: "sync", errno: EIO)
    static let full = DraftError.io(path: "/x", operation: "write", errno: ENOSPC)

    static func pipeline(files: DraftPipeline.Files, pendingLimit: Int = 1 << 20) -> DraftPipeline {
        DraftPipeline(
            path: "/x", pending: [], appended: 0, written: 0, files: files,
            latest: DraftState(board: BoardState(canvasCount: 1), recordingFile: nil), pendingLimit: pendingLimit)
    }

    /// One schedule: `appends` events and `waits` waits from the app, failures injected with `random`.
    struct World {
        var pipeline: DraftPipeline
        var disk = Disk()
        var writer: Step
        var syncer: Step
        var mirror: UInt64 = 0
        var random: SplitMix64
        var failuresLeft = 3
        let answers = Answers()
        var targets: [Int: UInt64] = [:]

        init(seed: UInt64) {
            random = SplitMix64(seed: seed)
            // A bound of two records: the writer falls behind now and then.
            pipeline = DraftPipelineTests.pipeline(files: .rewriteNeeded, pendingLimit: 64)
            writer = .take
            syncer = .idle
        }

        mutating func fails() -> Bool {
            guard failuresLeft > 0, Int.random(in: 0..<4, using: &random) == 0 else { return false }
            failuresLeft -= 1
            return true
        }

        mutating func run(_ answered: [@Sendable () -> Void]) {
            for answer in answered { answer() }
            // Nothing is reported durable that a power loss can lose.
            #expect(pipeline.progress.durable <= disk.kept, "durable \(pipeline.progress.durable), kept \(disk.kept)")
        }

        mutating func stepWriter() {
            switch writer {
            case .idle, .sync, .syncing, .finishSync: return
            case .take:
                writer = pipeline.nextBatch(first: true).map(Step.write) ?? .idle
            case .write(let batch):
                mirror = batch.board?.sequence ?? batch.items.last?.sequence ?? mirror
                if fails() {
                    disk.torn = true
                    let error = Bool.random(using: &random) ? DraftPipelineTests.failure : DraftPipelineTests.full
                    writer = .finishWrite(batch, .failure(error))
                } else if batch.rewrites || Bool.random(using: &random) && Bool.random(using: &random) {
                    // A rewrite, or a compaction after the append: synced as it is written.
                    disk.compact(through: mirror)
                    writer = .finishWrite(batch, .success(.init(sequence: mirror, isDurable: true)))
                } else {
                    if !disk.torn { disk.unsynced += batch.items.map(\.sequence) }
                    writer = .finishWrite(batch, .success(.init(sequence: mirror, isDurable: false)))
                }
            case .finishWrite(let batch, let outcome):
                let (answered, startsSyncer) = pipeline.finish(batch, outcome)
                if startsSyncer { syncer = .sync }
                run(answered)
                writer = pipeline.nextBatch(first: false).map(Step.write) ?? .idle
            }
        }

        mutating func stepSyncer() {
            switch syncer {
            case .idle, .take, .write, .finishWrite: return
            case .sync:
                syncer = pipeline.nextSync().map(Step.syncing) ?? .idle
            case .syncing(let sync):
                let failing = fails()
                disk.sync(failing: failing)
                syncer = .finishSync(sync, failing ? DraftPipelineTests.failure : nil)
            case .finishSync(let sync, let error):
                run(pipeline.finish(sync, error: error))
                syncer = .sync
            }
        }

        mutating func append() {
            let (_, starts) = pipeline.append(.event(.tap(0)), board: nil)
            if starts { writer = .take }
        }

        mutating func wait(_ id: Int) {
            targets[id] = pipeline.progress.appended
            let answers = answers
            let (answer, starts) = pipeline.wait(closing: false) { error in
                answers.values.withLock { $0[id] = error }
            }
            if let answer { answers.values.withLock { $0[id] = answer } }
            if starts { writer = .take }
        }

        var isIdle: Bool {
            if case .idle = writer, case .idle = syncer { return true }
            return false
        }
    }

    @Test("any order of writes, syncs and failures: nothing lost is durable, every waiter is answered")
    func schedules() {
        for seed in 0..<4_000 as Range<UInt64> {
            var world = World(seed: seed)
            var appends = Int.random(in: 1...6, using: &world.random)
            var waits = 0
            while appends > 0 || !world.isIdle {
                switch Int.random(in: 0..<3, using: &world.random) {
                case 0 where appends > 0:
                    world.append()
                    appends -= 1
                    if Int.random(in: 0..<3, using: &world.random) == 0 {
                        world.wait(waits)
                        waits += 1
                    }
                case 1: world.stepWriter()
                default: world.stepSyncer()
                }
            }
            // Every waiter was answered, durable exactly when its records are.
            let answers = world.answers.values.withLock { $0 }
            #expect(answers.count == waits, "seed \(seed): \(waits - answers.count) waiters never answered")
            for (id, answer) in answers where answer == nil {
                #expect(world.targets[id]! <= world.disk.kept, "seed \(seed)")
            }
            // With the disk healthy again, a last wait is answered durable.
            world.failuresLeft = 0
            world.wait(waits)
            while !world.isIdle {
                world.stepWriter()
                world.stepSyncer()
            }
            #expect(world.answers.values.withLock { $0[waits] } == .some(nil), "seed \(seed): the last wait")
            #expect(world.pipeline.progress.durable == world.pipeline.progress.appended, "seed \(seed)")
        }
    }

    /// A pipeline on sound files, nothing written, with `count` events handed over and written (not synced), the
    /// syncer started.
    static func written(_ count: Int) -> DraftPipeline {
        var pipeline = Self.pipeline(files: .sound)
        for _ in 0..<count { _ = pipeline.append(.event(.tap(0)), board: nil) }
        let batch = pipeline.nextBatch(first: true)!
        let (_, startsSyncer) = pipeline.finish(batch, .success(.init(sequence: UInt64(count), isDurable: false)))
        #expect(startsSyncer)
        #expect(pipeline.nextBatch(first: false) == nil && pipeline.writer == .idle)
        return pipeline
    }

    @Test("a sync that fails while a batch is written: no later sync makes what it dropped durable, a wait rewrites")
    func syncFailsDuringWrite() throws {
        var pipeline = Self.written(2)
        let takenSync = pipeline.nextSync()
        let sync = try #require(takenSync)
        #expect(pipeline.append(.event(.tap(1)), board: nil).startsWriter)
        let takenBatch = pipeline.nextBatch(first: true)
        let batch = try #require(takenBatch)
        // The sync fails (dropping records 1 to 3 from the page cache), then the batch's write returns.
        _ = pipeline.finish(sync, error: Self.failure)
        #expect(pipeline.nextSync() == nil && pipeline.syncer == .idle)
        let (_, startsSyncer) = pipeline.finish(batch, .success(.init(sequence: 3, isDurable: false)))
        #expect(!startsSyncer, "a sync now would report records durable that the failed one dropped")
        #expect(pipeline.progress.durable == 0)
        #expect(pipeline.nextBatch(first: false) == nil)
        // A waiter starts the rewrite, which makes everything durable.
        let answers = Answers()
        let (answer, startsWriter) = pipeline.wait(closing: false) { error in
            answers.values.withLock { $0[0] = error }
        }
        #expect(answer == nil && startsWriter)
        let takenRewrite = pipeline.nextBatch(first: true)
        let rewrite = try #require(takenRewrite)
        #expect(rewrite.rewrites)
        let (answered, _) = pipeline.finish(rewrite, .success(.init(sequence: 3, isDurable: true)))
        for resume in answered { resume() }
        #expect(answers.values.withLock { $0[0] } == .some(nil))
        #expect(pipeline.progress.durable == 3 && pipeline.files == .sound && pipeline.progress.failure == nil)
    }

    @Test("a sync that fails while a rewrite runs: the files still need one, and the next waiter starts it")
    func syncFailsDuringRewrite() throws {
        var pipeline = Self.written(1)
        let takenSync = pipeline.nextSync()
        let sync = try #require(takenSync)
        _ = pipeline.append(.event(.tap(1)), board: nil)
        let takenBatch = pipeline.nextBatch(first: true)
        let batch = try #require(takenBatch)
        _ = pipeline.finish(batch, .failure(Self.failure))
        _ = pipeline.append(.event(.tap(2)), board: nil)
        let takenRewrite = pipeline.nextBatch(first: false)
        let rewrite = try #require(takenRewrite)
        #expect(rewrite.rewrites)
        // The sync started before the failed write fails while the rewrite runs, then the rewrite succeeds.
        _ = pipeline.finish(sync, error: Self.failure)
        _ = pipeline.finish(rewrite, .success(.init(sequence: 3, isDurable: true)))
        #expect(pipeline.progress.durable == 3)
        #expect(pipeline.files == .rewriteNeeded)
        #expect(pipeline.nextBatch(first: false) == nil && pipeline.writer == .idle)
        _ = pipeline.append(.event(.tap(3)), board: nil)
        let (answer, startsWriter) = pipeline.wait(closing: false) { _ in }
        #expect(answer == nil && !startsWriter)
        let takenNext = pipeline.nextBatch(first: true)
        let next = try #require(takenNext)
        #expect(next.rewrites && next.items.count == 1)
        let (answered, _) = pipeline.finish(next, .success(.init(sequence: 4, isDurable: true)))
        #expect(answered.count == 1 && pipeline.files == .sound)
    }
}
