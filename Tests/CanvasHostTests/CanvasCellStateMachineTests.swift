import Foundation
import SeededRandom
import Testing

@testable import CanvasKit

/// The cell view-model's state machine alone: no observation, no provider, no thread. A small world performs the
/// actions it returns (registrations as a set, requests as numbers, publications as two values) and checks after every
/// event that what it did is what the lifecycle promises.
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
        /// after the machine read the values and before the registrations exist, so nobody is told of them.
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
        var registeredBoard = false
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
            return CanvasCellValues(
                status: status[index], videoURL: Self.takes[index][takeNumber[index]], boardIsRecording: isRecording)
        }

        /// Reads the values as they are now (a copy: the machine calls it while the world is being changed).
        func reader() -> (CanvasCellStateMachine.Binding) -> CanvasCellValues {
            let now = self
            return { now.values(of: $0.model) }
        }

        var boundIndex: Int? {
            guard let model = machine.binding?.model else { return nil }
            return Self.models.firstIndex { $0 === model }
        }

        mutating func perform(_ actions: CanvasCellStateMachine.Actions, _ event: Event) {
            if let model = actions.unregisterModel {
                if registeredModels.remove(ObjectIdentifier(model)) == nil {
                    problems.append("\(event): unregistered a model that was not registered")
                }
            }
            if actions.unregisterBoard != nil {
                if !registeredBoard { problems.append("\(event): unregistered the board while not registered") }
                registeredBoard = false
            }
            if let model = actions.registerModel {
                if !registeredModels.insert(ObjectIdentifier(model)).inserted {
                    problems.append("\(event): registered a model twice")
                }
            }
            if actions.registerBoard != nil {
                if registeredBoard { problems.append("\(event): registered the board twice") }
                registeredBoard = true
            }
            if let request = actions.cancel {
                let number = (request as! StubRequest).number
                if cancelled.contains(number) || completed.contains(number) || !returned.contains(number) {
                    problems.append("\(event): cancelled request \(number), which is not running")
                }
                cancelled.insert(number)
            }
            var written = CanvasCellStateMachine.Written()
            if actions.publish {
                while let publication = machine.nextPublication(after: &written) {
                    switch publication {
                    case .display(let value): display = value
                    case .cover(let value): cover = value
                    }
                }
            } else if case .display(let value)? = machine.nextPublication(after: &written), value != display {
                problems.append("\(event): \(String(describing: value)) was left unpublished")
            } else if case .cover? = machine.nextPublication(after: &written) {
                problems.append("\(event): a cover was left unpublished")
            }
            if let ticket = actions.requestCover {
                if asked[ticket.number] != nil { problems.append("\(event): request number \(ticket.number) reused") }
                asked[ticket.number] = ticket.take
            }
            if actions.deriveAfterRegistering {
                perform(machine.registrationsPerformed(read: reader()), event)
            }
        }

        mutating func apply(_ event: Event) {
            let derivations = machine.recomputations
            switch event {
            case .bindFirst, .bindSecond:
                let model = Self.models[event == .bindFirst ? 0 : 1]
                let actions = machine.bind(model: model, board: Self.board, read: reader())
                stale = false
                perform(actions, event)
            case .unbind:
                perform(machine.unbind(), event)
                stale = false
            case .start:
                let actions = machine.startObserving(read: reader())
                if boundIndex != nil { stale = false }
                perform(actions, event)
            case .startWhileWritten:
                let actions = machine.startObserving(read: reader())
                if let index = boundIndex, actions.registerModel != nil {
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
                // Two notifications of one event (a transaction): the first derives from every value the event
                // wrote, the second finds nothing new.
                perform(machine.modelChanged(read: reader()), event)
                perform(machine.modelChanged(read: reader()), event)
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
                guard registeredBoard else {
                    if boundIndex != nil { stale = true }
                    return
                }
                let before = machine.recomputations
                perform(machine.boardRecordingChanged(read: reader()), event)
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
                perform(machine.modelChanged(read: reader()), event)
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
            if registeredModels != expectedModels || registeredBoard != machine.isObserving {
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
            let expected = CanvasDisplay(
                status: values.status, videoURL: values.videoURL, missingFile: values.missingFile, take: values.take,
                boardIsRecording: values.boardIsRecording)
            if display != expected {
                problems.append("\(event): shows \(String(describing: display)), not \(expected)")
            }
            if let cover, values.videoURL.map(CanvasCellStateMachineTests.image(for:)) != cover {
                problems.append("\(event): shows a cover that is not the cover of its take")
            }
            // Requests still running (returned, not cancelled, not completed) are for the current take.
            for (number, url) in asked
            where returned.contains(number) && !cancelled.contains(number)
                && !completed.contains(number) && url != values.videoURL
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
