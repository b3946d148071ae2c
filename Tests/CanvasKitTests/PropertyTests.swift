import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasKit

/// Seeded random event sequences; a failure is shrunk to a minimal sequence and reported with its seed.
@Suite("Property tests")
struct PropertyTests {
    /// The first problem found when running `events` from `start`, or nil.
    static func firstProblem(_ events: [CanvasEvent], from start: BoardState) -> String? {
        var state = start
        for (step, event) in events.enumerated() {
            let outcome = BoardState.transition(from: state, on: event)
            let problems = Invariants.check(before: state, event: event, outcome: outcome)
            if !problems.isEmpty { return "step \(step + 1) \(event): \(problems.joined(separator: ", "))" }
            if let disagreement = ReferenceBoard.disagreement(on: event, from: state, outcome: outcome) {
                return "step \(step + 1): \(disagreement)"
            }
            if case .accepted(let next, _, _) = outcome { state = next }
        }
        return nil
    }

    @Test("Random sequences keep the invariants and agree with the reference", arguments: 0..<8)
    func randomSequences(batch: UInt64) {
        for offset in 0..<40 as Range<UInt64> {
            let seed = batch * 1_000 + offset
            var generator = EventGenerator(seed: seed)
            let start = BoardState(canvasCount: Int(seed % 9) + 1)
            let events = generator.sequence(length: 80, start: start)
            guard Self.firstProblem(events, from: start) != nil else { continue }
            let minimal = Shrinker.shrink(events, simplifications: EventGenerator.simplifications) {
                Self.firstProblem($0, from: start) != nil
            }
            Issue.record(
                """
                seed \(seed), \(start.count) canvases: minimal failing sequence \
                \(minimal.map(\.description).joined(separator: "; ")): \(Self.firstProblem(minimal, from: start) ?? "")
                """)
        }
    }

    @Test("The in-place and pure forms give the same board after long sequences")
    func inPlaceMatchesPure() {
        for seed in 100..<120 as Range<UInt64> {
            var generator = EventGenerator(seed: seed)
            let start = BoardState(canvasCount: 5)
            let events = generator.sequence(length: 200, start: start)
            var inPlace = start
            var pure = start
            for event in events {
                let reaction = inPlace.handle(event)
                let outcome = BoardState.transition(from: pure, on: event)
                #expect(reaction.effects == outcome.effects && reaction.rejection == outcome.rejection)
                if case .accepted(let next, _, _) = outcome { pure = next }
            }
            #expect(inPlace == pure)
        }
    }

    @Test("The shrinker finds the minimal sequence that breaks a property")
    func shrinkerFindsMinimalSequence() throws {
        // Property: "no take is ever replaced". It is false; the shortest counterexample is
        // tap 0; record; stop; record; stop.
        func replacesATake(_ events: [CanvasEvent]) -> Bool {
            var state = BoardState(canvasCount: 4)
            return events.contains { state.handle($0).effects.contains { $0.kind == .takeReplaced } }
        }
        var found: [CanvasEvent]?
        for seed in 0..<50 as Range<UInt64> {
            var generator = EventGenerator(seed: seed)
            let events = generator.sequence(length: 120, start: BoardState(canvasCount: 4))
            if replacesATake(events) {
                found = events
                break
            }
        }
        let failing = try #require(found)
        let minimal = Shrinker.shrink(failing, simplifications: EventGenerator.simplifications, fails: replacesATake)
        #expect(minimal.count == 5)
        #expect(minimal.map(\.word) == ["tap", "record", "stop", "record", "stop"])
        #expect(minimal.first == .tap(0))
        #expect(failing.count > minimal.count)
    }
}
