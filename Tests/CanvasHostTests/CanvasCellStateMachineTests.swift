import Foundation
import SeededRandom
import Testing

@testable import CanvasKit

/// The cell view-model's state machine alone: no observation, no provider, no thread. A small world performs the
/// actions it returns (registrations as a set, requests as numbers, publications as two values), hands the machine
/// what a registered observation would (the values at registration, then each change of them, once), and checks after
/// every event that what it did is what the lifecycle promises.
@Suite("Cell view-model state machine: every short sequence of events, and long seeded ones")
struct CanvasCellStateMachineTests {
    /// A request object; the world tracks requests by number.
    final class StubRequest: CancellableCoverRequest {
        let number: UInt64
        init(number: UInt64) { self.number = number }
        func cancel() {}
    }

    enum Event: CaseIterable {
        case bindFirst, bindSecond, unbind, start, stop
        /// Observation starts while another thread writes the bound model's take and `isRecording`: the writes land
        /// after the machine decided to register and before the registration exists, so only its first call tells.
        case startWhileWritten
        /// A board event that writes two observed keys of the first (second) model: its take and its status.
        case eventOnFirst, eventOnSecond
        /// A board event that flips `isRecording`.
        case recordingFlips
        /// A change of the bound model seen outside a board event (the board refuses to call back).
        case changeOutsideEvent
        /// The provider returns the newest request it was asked for.
        case providerReturns
        /// The oldest request not completed yet (cancelled ones included: a late completion) completes.
        case completes, fails
    }

    /// The cover of `url`'s take: one grey pixel per byte of its path, so that covers of two takes differ.
    static func image(for url: URL) -> CoverImage {
        let bytes = Array(url.path.utf8)
        // Consistent sizes by construction; every take of the world has a path.
        return try! CoverImage(
            width: bytes.count, height: 1, bytesPerRow: bytes.count * 3, pixelFormat: .rgb,
            pixels: bytes.flatMap { [$0, $0, $0] })
    }

    struct World {
        static let board = CanvasBoard(canvasCount: 2)
        static let models = [board.model(at: 0), board.model(at: 1)]
        static let takes: [[URL?]] = [0, 1].map { index in
            [nil, URL(fileURLWithPath: "/takes/\(index)-a.mov"), URL(fileURLWithPath: "/takes/\(index)-b.mov")]
        }

        var machine = CanvasCellStateMachine(requestsCovers: true)
        /// Per model: the position in `takes` and the status.
        var takeNumber = [1, 0]
        var status: [CanvasStatus] = [.noPreview, .noPreview]
        var isRecording = false

        var registeredModels: Set<ObjectIdentifier> = []
        /// What each registered observation handed last (it hands a value only when it changed).
        var handed: [ObjectIdentifier: CanvasCellValues] = [:]
        var display: CanvasDisplay?
        var cover: CoverImage?
        /// Requests asked for, by number, with their take; whether the provider returned them, cancelled, completed.
        var asked: [UInt64: URL] = [:]
        var returned: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        var completed: Set<UInt64> = []
        /// The bound model's values changed while it was not observed: what it shows may lag until start or bind.
        var stale = false
        var problems: [String] = []

        func values(of model: CanvasModel) -> CanvasCellValues {
            let index = Self.models.firstIndex { $0 === model }!
            let take = Self.takes[index][takeNumber[index]]
            let display = CanvasDisplay(
                status: status[index], videoURL: take, missingFile: nil, take: nil, boardIsRecording: isRecording)
            return CanvasCellValues(display: display, take: take)
        }

        /// What a registered observation of `model` does after a change: hands the values when they changed.
        mutating func observationHears(_ model: CanvasModel, _ event: Event) {
            let id = ObjectIdentifier(model)
            guard registeredModels.contains(id), handed[id] != values(of: model) else { return }
            handed[id] = values(of: model)
            perform(machine.changed(to: values(of: model), of: model), event)
        }

        var boundIndex: Int? {
            guard let model = machine.binding?.model else { return nil }
            return Self.models.firstIndex { $0 === model }
        }

        mutating func perform(_ actions: CanvasCellStateMachine.Actions, _ event: Event) {
            if actions.publish {
                display = machine.shownDisplay
                cover = machine.shownCover
            } else if machine.shownDisplay != display || machine.shownCover != cover {
                problems.append("\(event): a change was left unpublished")
            }
            if let model = actions.unregister {
                if registeredModels.remove(ObjectIdentifier(model)) == nil {
                    problems.append("\(event): unregistered a model that was not registered")
                }
                handed[ObjectIdentifier(model)] = nil
            }
            if let model = actions.register {
                if !registeredModels.insert(ObjectIdentifier(model)).inserted {
                    problems.append("\(event): registered a model twice")
                }
                // The registration's `.initial` call, made before `observe` returns.
                handed[ObjectIdentifier(model)] = values(of: model)
                perform(machine.changed(to: values(of: model), of: model), event)
            }
            if let request = actions.cancel {
                let number = (request as! StubRequest).number
                if cancelled.contains(number) || completed.contains(number) || !returned.contains(number) {
                    problems.append("\(event): cancelled request \(number), which is not running")
                }
                cancelled.insert(number)
            }
            if let ticket = actions.requestCover {
                if asked[ticket.number] != nil { problems.append("\(event): request number \(ticket.number) reused") }
                asked[ticket.number] = ticket.take
            }
        }

        mutating func apply(_ event: Event) {
            let derivations = machine.recomputations
            switch event {
            case .bindFirst, .bindSecond:
                let model = Self.models[event == .bindFirst ? 0 : 1]
                let actions = machine.bind(model: model, board: Self.board, values: values(of: model))
                stale = false
                perform(actions, event)
            case .unbind:
                perform(machine.unbind(), event)
                stale = false
            case .start:
                let actions = machine.startObserving()
                if boundIndex != nil { stale = false }
                perform(actions, event)
            case .startWhileWritten:
                let actions = machine.startObserving()
                if let index = boundIndex, actions.register != nil {
                    takeNumber[index] = (takeNumber[index] + 1) % 3
                    isRecording.toggle()
                    stale = false
                } else if boundIndex != nil {
                    stale = false
                }
                perform(actions, event)
            case .stop:
                perform(machine.stopObserving(), event)
            case .eventOnFirst, .eventOnSecond:
                let index = event == .eventOnFirst ? 0 : 1
                takeNumber[index] = (takeNumber[index] + 1) % 3
                status[index] = status[index] == .noPreview ? .inPreview : .noPreview
                let model = Self.models[index]
                guard registeredModels.contains(ObjectIdentifier(model)) else {
                    if boundIndex == index { stale = true }
                    return
                }
                // One event (a transaction) that changed two of what the observation reads: it hands the values once.
                observationHears(model, event)
                if machine.recomputations != derivations + 1 {
                    problems.append("\(event): derived \(machine.recomputations - derivations) times")
                }
            case .recordingFlips:
                let showsTake: Bool
                switch machine.bound?.display.picture {
                case .cover?, .playback?: showsTake = true
                default: showsTake = false
                }
                isRecording.toggle()
                guard let model = machine.binding?.model, registeredModels.contains(ObjectIdentifier(model)) else {
                    if boundIndex != nil { stale = true }
                    return
                }
                let before = machine.recomputations
                observationHears(model, event)
                if !showsTake && machine.recomputations != before {
                    problems.append("\(event): a canvas that shows no take re-derives")
                }
                if showsTake && machine.recomputations == before {
                    problems.append("\(event): a canvas that shows its take ignored isRecording")
                }
            case .changeOutsideEvent:
                guard let index = boundIndex else { return }
                takeNumber[index] = (takeNumber[index] + 1) % 3
                guard registeredModels.contains(ObjectIdentifier(Self.models[index])) else {
                    stale = true
                    return
                }
                let before = machine.recomputations
                observationHears(Self.models[index], event)
                if machine.recomputations == before { problems.append("\(event): the change was dropped") }
            case .providerReturns:
                guard let number = asked.keys.filter({ !returned.contains($0) }).max() else { return }
                returned.insert(number)
                // A request that finished before it was returned and is no longer wanted may be cancelled: harmless.
                if let request = machine.coverRequestStarted(StubRequest(number: number), number: number) {
                    cancelled.insert((request as! StubRequest).number)
                }
            case .completes, .fails:
                guard let number = asked.keys.filter({ !completed.contains($0) }).min() else { return }
                completed.insert(number)
                let url = asked[number]!
                let result: Result<CoverImage, any Error> =
                    event == .completes
                    ? .success(CanvasCellStateMachineTests.image(for: url)) : .failure(Failure("no"))
                let coverBefore = cover
                let isCurrent = !cancelled.contains(number) && number == asked.keys.max()
                perform(machine.coverFinished(result, number: number), event)
                if !isCurrent && cover != coverBefore {
                    problems.append("\(event): a stale completion changed the cover")
                }
            }
            check(after: event)
        }

        mutating func check(after event: Event) {
            let expectedModels: Set<ObjectIdentifier> =
                machine.isObserving ? [ObjectIdentifier(machine.binding!.model)] : []
            if registeredModels != expectedModels {
                problems.append("\(event): registrations do not match the binding and the wish to observe")
            }
            guard let index = boundIndex else {
                if display != nil || cover != nil { problems.append("\(event): unbound but shows something") }
                let running = asked.keys.filter {
                    returned.contains($0) && !cancelled.contains($0) && !completed.contains($0)
                }
                if !running.isEmpty { problems.append("\(event): unbound with requests \(running) running") }
                return
            }
            guard !stale else { return }
            let values = values(of: Self.models[index])
            let expected = values.display
            if display != expected {
                problems.append("\(event): shows \(String(describing: display)), not \(expected)")
            }
            if let cover, values.take.map(CanvasCellStateMachineTests.image(for:)) != cover {
                problems.append("\(event): shows a cover that is not the cover of its take")
            }
            // Requests still running (returned, not cancelled, not completed) are for the current take.
            for (number, url) in asked
            where returned.contains(number) && !cancelled.contains(number)
                && !completed.contains(number) && url != values.take
            {
                problems.append("\(event): request \(number) for an old take still runs")
            }
            // A current take shown as a cover has been asked for.
            if case .cover(let take) = expected.picture, !asked.values.contains(take) {
                problems.append("\(event): the cover of \(take.lastPathComponent) was never asked for")
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("every sequence of up to 5 events keeps registrations, display, cover and requests right")
    func exhaustive() {
        var explored = 0
        var firstProblem: (path: [Event], problems: [String])?
        func explore(_ world: World, path: [Event], depth: Int) {
            for event in Event.allCases {
                var next = world
                next.apply(event)
                explored += 1
                if !next.problems.isEmpty {
                    if firstProblem == nil { firstProblem = (path + [event], next.problems) }
                    continue
                }
                if depth > 1 { explore(next, path: path + [event], depth: depth - 1) }
            }
        }
        explore(World(), path: [], depth: 5)
        #expect(firstProblem == nil, "\(firstProblem.map { "\($0.path): \($0.problems)" } ?? "")")
        #expect(explored > 200_000)
    }

    @Test("long seeded sequences keep registrations, display, cover and requests right", arguments: 0..<8)
    func seeded(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var world = World()
        var path: [Event] = []
        for _ in 0..<400 {
            let event = Event.allCases[Int(generator.next() % UInt64(Event.allCases.count))]
            path.append(event)
            world.apply(event)
            guard world.problems.isEmpty else { break }
        }
        #expect(world.problems.isEmpty, "seed \(seed), after \(path): \(world.problems)")
    }

    @Test("a failed request is reported for its take and cleared when the take changes")
    func coverErrorFollowsTheTake() {
        var world = World()
        world.apply(.bindFirst)
        world.apply(.providerReturns)
        world.apply(.fails)
        #expect(world.machine.coverError == "no")
        world.apply(.start)
        world.apply(.eventOnFirst)
        #expect(world.machine.coverError == nil)
        #expect(world.problems.isEmpty)
    }
}
