import CanvasTestSupport
import Foundation
import SeededRandom
import Testing

@testable import CanvasKit

/// A kill at any moment of a session, of the restore that follows it, and of the session after that: every restore is
/// the board after the record it read (the restore's own records included), never a board that lost a take.
@Suite("Drafts: a kill at every moment")
struct DraftKillPointTests {
    static let path = "/k/board.draft"

    static func options(_ storage: any DraftStorage, threshold: Int) -> DraftOptions {
        DraftOptions(
            storage: storage, compactionThreshold: threshold,
            takeExists: { !$0.lastPathComponent.hasPrefix("missing") })
    }

    /// The board after one record; `armedMayBeLost` for a record of a restore's own written before its last one (a
    /// torn write of them may leave the armed undo disarmed by a mark, not armed again).
    struct Expected {
        let state: BoardState
        var armedMayBeLost = false
    }

    /// What a search found and how far it went.
    struct Search {
        var failures: [String] = []
        var restores = 0
        var names = 0
        var random: SplitMix64
        /// Sent first in every session that sends events (then `count` drawn ones).
        var opening: [CanvasEvent] = []
        /// The events drawn in a session with this many sessions after it.
        var counts = [0, 12, 60]
    }

    /// Why `restored` (a restore of record `sequence`) is not the board after that record: its canvases, takes (files
    /// in order, marks aside), selection and armed undo. Nil when it is.
    static func problem(_ restored: BoardState, sequence: UInt64, history: [UInt64: Expected]) -> String? {
        guard let expected = history[sequence] else {
            return "restored record \(sequence), which is not one of \(history.keys.sorted())"
        }
        let want = expected.state
        func shown(_ board: BoardState) -> String {
            let canvases = board.indices.map { index in
                "\(board.id(at: index)):"
                    + board.segments(at: index).map(\.url.lastPathComponent).joined(separator: "+")
            }
            let armed = board.armedUndo.map { "\($0)" } ?? "-"
            return canvases.joined(separator: " ") + " selected \(board.selection?.index ?? -1) armed \(armed)"
        }
        var found = restored
        if expected.armedMayBeLost, found.armedUndo == nil { found.armedUndo = want.armedUndo }
        guard restored.recordingIndex == nil, shown(found) == shown(want) else {
            return "record \(sequence): restored [\(shown(restored))], the board after it was [\(shown(want))]"
        }
        return nil
    }

    /// An event for `state`, drawn as the crash harness draws them: mostly accepted ones, stops into new, missing and
    /// used files, undos that arm and confirm, relinks, removals.
    static func event(for state: BoardState, _ search: inout Search) -> CanvasEvent {
        let count = state.count
        let roll = Int.random(in: 0..<100, using: &search.random)
        func fresh(_ kind: String) -> URL {
            search.names += 1
            return URL(fileURLWithPath: "/k/\(kind)-\(search.names).mov")
        }
        func index() -> Int { Int.random(in: 0..<count, using: &search.random) }
        if state.recordingIndex != nil, roll < 70 {
            if roll < 55 {
                let pick = Int.random(in: 0..<20, using: &search.random)
                let used = state.indices.compactMap(state.videoURL(at:))
                if pick == 0, let take = used.randomElement(using: &search.random) { return .stop(take) }
                return .stop(fresh(pick == 1 ? "missing" : "take"))
            }
            if roll < 62 { return .cancel }
            return [
                .recordingStarted(at: HostTime(seconds: 1.5)), .recordingFailed(.call),
                .recordingCutShort(.background, file: nil), .recordingCutShort(.call, file: fresh("take")),
            ][roll % 4]
        }
        switch roll {
        case ..<40: return .tap(Int.random(in: 0...count, using: &search.random))
        case ..<60: return .record
        case ..<70: return .delete(index())
        case ..<80: return count < 12 ? .add : .tap(index())
        case ..<86: return .remove(index())
        case ..<88: return .relink(index())
        case ..<93:
            let armed = state.armedUndo.flatMap(state.index(of:))
            return .undo(roll % 2 == 1 ? armed ?? index() : index())
        case 93: return .disarmUndo
        default: return roll % 2 == 1 ? .stop(URL(fileURLWithPath: "/k/take-0.mov")) : .cancel
        }
    }

    /// Opens the draft on `storage` and checks the restore against `history`; then sends `count` events (noting a
    /// recording file after each accepted `record`, waiting for the writer now and then), and keeps the board after
    /// every record it appended, the restore's own included, in `history`. Returns false when the restore was wrong.
    static func session(
        _ storage: KillPointStorage, threshold: Int, count: Int, history: inout [UInt64: Expected],
        _ search: inout Search
    ) async throws -> Bool {
        let board = try CanvasBoard(
            draftAt: URL(fileURLWithPath: path), newBoard: BoardState(canvasCount: 3),
            options: options(storage, threshold: threshold))
        let draft = board.draft!
        let restored = draft.restore.sequence
        search.restores += 1
        if let problem = problem(board.state, sequence: restored, history: history) {
            search.failures.append(problem)
            return false
        }
        // The records after the one read are gone: the numbers are this session's from here on.
        history = history.filter { $0.key == restored }
        let appended = draft.progress.appended
        for record in (restored + 1)..<(appended + 1) {
            history[record] = Expected(state: board.state, armedMayBeLost: record < appended)
        }
        let opening = count > 0 ? search.opening : []
        for index in 0..<(opening.count + count) {
            let outcome = board.send(index < opening.count ? opening[index] : event(for: board.state, &search))
            if let record = outcome.draftRecord { history[record] = Expected(state: board.state) }
            if case .startRecording = outcome.effects.first {
                draft.noteRecordingFile(URL(fileURLWithPath: "/k/recording.mov"))
                history[draft.progress.appended] = Expected(state: board.state)
            }
            if Int.random(in: 0..<4, using: &search.random) == 0 {
                while draft.progress.written < draft.progress.appended { await Task.yield() }
            }
        }
        try await draft.close()
        return true
    }

    /// Restores every image a kill could have left during the session on `image` (of `depth` sessions more), and
    /// checks each.
    static func explore(
        _ image: [String: [UInt8]], depth: Int, threshold: Int, history: [UInt64: Expected], _ search: inout Search
    ) async throws {
        guard search.failures.isEmpty else { return }
        let storage = KillPointStorage(files: image)
        var history = history
        let count = search.counts[depth]
        guard try await session(storage, threshold: threshold, count: count, history: &history, &search), depth > 0
        else { return }
        for next in storage.images {
            try await explore(next, depth: depth - 1, threshold: threshold, history: history, &search)
        }
    }

    /// Three seeds (about 10,000 restores); `DRAFT_KILL_POINT_SEEDS=N` runs N.
    @Test("a kill at any write of a session, its restore and the next session: each restore is the board of its record")
    func killAtEveryMoment() async throws {
        var restores = 0
        let seeds = ProcessInfo.processInfo.environment["DRAFT_KILL_POINT_SEEDS"].flatMap { UInt64($0) } ?? 3
        for seed in 1...max(1, seeds) {
            let threshold = [3, 5, 50, 4][Int(seed % 4)]
            var search = Search(random: SplitMix64(seed: seed))
            try await Self.explore(
                [:], depth: 2, threshold: threshold, history: [0: Expected(state: BoardState(canvasCount: 3))],
                &search)
            #expect(search.failures.isEmpty, "seed \(seed): \(search.failures.first ?? "")")
            restores += search.restores
        }
        #expect(restores > 1_000 * Int(seeds))
    }

    @Test("an armed undo through restores killed at every moment: the restore that marks a take arms it again, once")
    func armedUndoThroughRestores() async throws {
        // Canvas 0's take, canvas 1's take in a file that is gone, canvas 0's undo armed: each restore marks canvas 1
        // (which disarms) and arms the undo again. Every session after a restore confirms the undo first.
        let storage = KillPointStorage()
        let board = try CanvasBoard(
            draftAt: URL(fileURLWithPath: Self.path), newBoard: BoardState(canvasCount: 3),
            options: Self.options(storage, threshold: 4))
        var history = [UInt64(0): Expected(state: board.state)]
        let take = URL(fileURLWithPath: "/k/take-a.mov")
        let missing = URL(fileURLWithPath: "/k/missing-b.mov")
        for event in [CanvasEvent.tap(0), .record, .stop(take), .tap(1), .record, .stop(missing), .tap(1), .undo(0)] {
            let record = try #require(board.send(event).draftRecord)
            history[record] = Expected(state: board.state)
        }
        try await board.draft!.close()
        var search = Search(random: SplitMix64(seed: 7), opening: [.undo(0)], counts: [0, 4, 4])
        for image in storage.images {
            try await Self.explore(image, depth: 2, threshold: 4, history: history, &search)
        }
        #expect(search.failures.isEmpty, "\(search.failures.first ?? "")")
        #expect(search.restores > 100)
    }
}
