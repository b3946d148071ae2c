import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasKit

/// Every state of boards of 1 to 4 canvases (every selection, takes of 0 to 2 segments, an undo armed or not, a
/// recording that starts a take or continues one, with and without a maximum take length) times every event.
@Suite("Exhaustive over small boards")
struct ExhaustiveTests {
    /// `state`, and the states one or two events away from it that the base states cannot express: each canvas's
    /// undo armed, the recording continuing its take instead of starting a new one, and a take's file marked missing.
    static func variants(of state: BoardState) -> [BoardState] {
        var states = [state]
        for index in state.indices {
            if let armed = BoardState.transition(from: state, on: .undo(index)).next, armed.armedUndo != nil {
                states.append(armed)
            }
        }
        if let previewing = BoardState.transition(from: state, on: .cancel).next,
            let resuming = BoardState.transition(from: previewing, on: .resume).next
        {
            states.append(resuming)
        }
        // Takes marked missing (their first or their last file), on boards of up to three canvases.
        guard state.count <= 3 else { return states }
        for index in state.indices {
            let files = state.segments(at: index).map(\.url)
            for file in Set([files.first, files.last].compactMap(\.self)) {
                if let marked = BoardState.transition(from: state, on: .markMissing(index, file)).next {
                    states.append(marked)
                }
            }
        }
        return states
    }

    @Test(
        "Every state and event has an explicit outcome that keeps I1-I3 and agrees with the reference", arguments: 1...4
    )
    func everyStateEveryEvent(count: Int) {
        var rejectionKinds: Set<CanvasRejection.Kind> = []
        var effectKinds: Set<CanvasEffect.Kind> = []
        var checked = 0
        var fresh = 0
        let bases =
            Boards.allStates(count: count, segmentsPerTake: 2)
            + Boards.allStates(count: count, segmentsPerTake: 2, maximumTakeLength: 2)
        for state in bases.flatMap(Self.variants(of:)) {
            #expect(Invariants.check(state).isEmpty, "\(state)")
            fresh += 1
            for event in Boards.events(for: state, fresh: Boards.take("fresh-\(fresh).mov")) {
                let outcome = BoardState.transition(from: state, on: event)
                checked += 1
                switch outcome {
                case .rejected(let rejection):
                    rejectionKinds.insert(rejection.kind)
                    // A rejection says why in words.
                    #expect(!rejection.description.isEmpty)
                case .accepted(_, let effects, _):
                    // Every accepted event tells the host something, but arming or disarming an undo and marking a
                    // take missing (the models show them).
                    #expect(
                        !effects.isEmpty || ["undo", "disarm", "missing"].contains(event.word), "\(event) on \(state)")
                    for effect in effects { effectKinds.insert(effect.kind) }
                }
                let problems = Invariants.check(before: state, event: event, outcome: outcome)
                #expect(problems.isEmpty, "\(event) on\n\(state)\n\(problems)")
                let disagreement = ReferenceBoard.disagreement(on: event, from: state, outcome: outcome)
                #expect(disagreement == nil, "\(state)\n\(disagreement ?? "")")
            }
        }
        #expect(checked > 0)
        // From 2 canvases on, every rule and every rejection is exercised (but `resume` of a take marked missing
        // on 4 canvases, whose variants mark none).
        if count >= 2 {
            let unmarked: Set<CanvasRejection.Kind> = count <= 3 ? [.lastCanvas] : [.lastCanvas, .takeMissing]
            #expect(rejectionKinds == Set(CanvasRejection.Kind.allCases).subtracting(unmarked))
            #expect(effectKinds == Set(CanvasEffect.Kind.allCases.filter { !$0.isRestoreReport }))
        } else {
            #expect(rejectionKinds.contains(.lastCanvas))
        }
    }

    @Test("Declaring a board rejects impossible states")
    func invalidStates() {
        #expect(throws: BoardState.InvalidState.noCanvases) { try BoardState(takes: []) }
        #expect(throws: BoardState.InvalidState.selectionOutOfRange(index: 2, count: 2)) {
            try BoardState(takes: [nil, nil], selection: .init(index: 2, phase: .inPreview))
        }
        let shared = Boards.take("x.mov")
        #expect(throws: BoardState.InvalidState.duplicateTake(shared, indexes: [0, 2])) {
            try BoardState(takes: [shared, nil, shared])
        }
    }
}
