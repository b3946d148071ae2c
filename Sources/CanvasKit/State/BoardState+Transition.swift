import Foundation

extension BoardState {
    /// The transition function (the rules table of Docs/CanvasKit.md): the outcome of `event` on `state`, without
    /// changing `state`.
    ///
    /// Total: every state and every event has an outcome, and invariants I1-I3 hold for the next state. The outcome
    /// carries the next board, the effects for the host and the ``BoardChange`` the models are updated from. Taps,
    /// `record`, `resume` and `cancel` share the canvas storage with `state` (constant time on any board); `stop`,
    /// `delete`, `undo`, `add` and `remove` copy one chunk of it, since `state` keeps its own. Every accepted event
    /// but `undo` disarms an armed undo.
    ///
    /// `playbackStart` is the host time a `record` or `resume` event's ``SyncedPlayback`` starts the playing takes at
    /// (a ``CanvasBoard`` passes its clock's time plus its playback lead); other events ignore it.
    public static func transition(
        from state: BoardState, on event: CanvasEvent, playbackStart: HostTime
    ) -> BoardOutcome {
        var next = state
        return next.handle(event, playbackStart: playbackStart).outcome(next: next)
    }

    /// The transition function with a `record` event's playback starting at host time 0 (see
    /// ``transition(from:on:playbackStart:)``).
    public static func transition(from state: BoardState, on event: CanvasEvent) -> BoardOutcome {
        transition(from: state, on: event, playbackStart: .zero)
    }

    /// What ``handle(_:)`` returns: the ``BoardOutcome`` of the event without its next board, which is the board
    /// itself. (An outcome holding a copy of the board would make the next in-place event copy its storage.)
    package enum Step: Sendable, Hashable {
        case accepted(effects: Effects, change: BoardChange)
        case rejected(CanvasRejection)

        /// The outcome, with `next` the board this step left.
        func outcome(next: BoardState) -> BoardOutcome {
            switch self {
            case .accepted(let effects, let change): .accepted(next: next, effects: effects.array, change: change)
            case .rejected(let rejection): .rejected(rejection)
            }
        }

        /// The effects of an accepted event, held without an array when there is only one: most events (taps,
        /// `record`, `cancel`, `delete`) have one, and an array of one cost each of them a heap allocation and its
        /// release, about 60% of an in-place tap (`CanvasBenchmark`, "taps, in place"). The outcome's array is made
        /// when it is asked for. Only an `undo` that arms and a `disarmUndo` have none (the models show them).
        package struct Effects: Sendable, Hashable {
            /// The first effect; nil: none.
            let first: CanvasEffect?
            /// The effects after the first (empty for most events: an empty array allocates nothing).
            let rest: [CanvasEffect]

            /// No effect.
            static var none: Effects { Effects(nil, rest: []) }

            private init(_ first: CanvasEffect?, rest: [CanvasEffect]) {
                self.first = first
                self.rest = rest
            }

            /// One effect.
            init(_ effect: CanvasEffect) {
                first = effect
                rest = []
            }

            /// `first`, then `rest`.
            init(_ first: CanvasEffect, then rest: [CanvasEffect]) {
                self.first = first
                self.rest = rest
            }

            /// The effects in `effects`, in order. - Precondition: `effects` is not empty.
            init(_ effects: [CanvasEffect]) {
                self.init(effects[0], then: Array(effects.dropFirst()))
            }

            /// The effects as an array, in order (one allocation).
            var array: [CanvasEffect] {
                guard let first else { return [] }
                guard !rest.isEmpty else { return [first] }
                var all: [CanvasEffect] = []
                all.reserveCapacity(1 + rest.count)
                all.append(first)
                all.append(contentsOf: rest)
                return all
            }
        }

        /// The effects, in order; empty when rejected.
        package var effects: [CanvasEffect] {
            if case .accepted(let effects, _) = self { return effects.array }
            return []
        }

        /// The rejection, or nil when accepted.
        var rejection: CanvasRejection? {
            if case .rejected(let rejection) = self { return rejection }
            return nil
        }

        /// Whether the event was accepted.
        package var isAccepted: Bool { rejection == nil }
    }

    /// The transition function applied in place: `transition(from: self, on: event)` is
    /// `handle(event).outcome(next: self)` afterwards, with this board exactly as it was when rejected.
    ///
    /// For owners of a board that keep no old state (`CanvasBoard`, benchmarks): nothing is copied as long as this
    /// board's storage is not shared. Constant time for every event but `add` and `remove` (which shift the canvases
    /// after the index), `stop` (which checks that the segment's file is no other segment's), `record` and `resume`
    /// (which list the takes that play), and the one that disarms an undo (which finds its canvas).
    /// `playbackStart` is the host time a `record` or `resume` event's playback starts at.
    package mutating func handle(_ event: CanvasEvent, playbackStart: HostTime = .zero) -> Step {
        var change = BoardChange(selection: selection, armedUndo: armedUndo)
        let rule: Rule
        switch event {
        case .tap(let index): rule = tap(index)
        case .tapCanvas(let id):
            if let index = index(of: id) { rule = tap(index) } else { rule = .rejected(.canvasNotOnBoard(id)) }
        case .record: rule = record(playbackStart: playbackStart)
        case .stop(let url, let start, let duration):
            rule = stop(Segment(url, start: start, duration: duration), &change)
        case .cancel: rule = cancel()
        case .recordingStarted(let time): rule = recordingStarted(at: time)
        case .recordingFailed(let problem): rule = recordingFailed(problem)
        case .recordingCutShort(let problem, let file, let start, let duration):
            rule = recordingCutShort(problem, file.map { Segment($0, start: start, duration: duration) }, &change)
        case .delete(let index): rule = delete(index, &change)
        case .add: rule = add(&change)
        case .remove(let index): rule = remove(index, &change)
        case .resume: rule = resume(playbackStart: playbackStart)
        case .undo(let index): rule = undo(index, &change)
        case .disarmUndo: rule = armedUndo == nil ? .rejected(.nothingArmed) : .accepted(.none)
        case .setSoundtrack(let soundtrack):
            self.soundtrack = soundtrack
            rule = .accepted(Step.Effects(.soundtrackChanged(soundtrack)))
        case .setMicrophone(let isOn):
            recordsSound = isOn
            rule = .accepted(Step.Effects(.microphoneChanged(recordsSound: isOn)))
        case .markMissing(let index, let url): rule = markMissing(index, url, &change)
        case .relink(let index): rule = relink(index, &change)
        }
        switch rule {
        case .accepted(let effects):
            change.selectionAfter = selection
            if armedUndo != nil, !event.isUndo { armedUndo = nil }
            return .accepted(effects: effects, change: change)
        case .rejected(let rejection):
            return .rejected(rejection)
        }
    }

    /// What one rule decided. A rule changes `selection` freely (the change records it before and after) and records
    /// in `change` the take it sets and the canvas it inserts or removes. A rule that rejects changes nothing.
    enum Rule {
        case accepted(Step.Effects)
        case rejected(CanvasRejection)
    }

    /// Changes the take of the canvas at `index` with `edit`, in place (the slot is not copied out and back),
    /// recording in `change` that it changed (and whether its first file did) when it does.
    mutating func editTake(at index: Int, _ change: inout BoardChange, _ edit: (inout Slot) -> Void) {
        slots.update(at: index) { slot in
            let old = slot.take?.segments
            edit(&slot)
            let new = slot.take?.segments
            if new != old {
                change.canvas = .take(index: index, firstFileChanged: old?[0].url != new?[0].url)
            }
        }
    }

    /// Sets the take of the canvas at `index` to `segments` (empty: no take), recording the change as ``editTake(at:_:_:)``.
    mutating func setSegments(_ segments: [Segment], at index: Int, _ change: inout BoardChange) {
        editTake(at: index, &change) { $0.setTake(segments) }
    }

    private mutating func tap(_ index: Int) -> Rule {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        guard let current = selection else {
            selection = Selection(index: index, phase: .inPreview)
            return .accepted(Step.Effects(.attachPreview(to: index)))
        }
        switch current.phase {
        case .recording:
            return .rejected(.lockedWhileRecording(recordingIndex: current.index))
        case .inPreview where current.index == index:
            selection = nil
            return .accepted(Step.Effects(.detachPreview(from: index)))
        case .inPreview:
            selection = Selection(index: index, phase: .inPreview)
            return .accepted(Step.Effects(.movePreview(from: current.index, to: index)))
        }
    }

    private mutating func record(playbackStart: HostTime) -> Rule {
        guard let current = selection else { return .rejected(.nothingToRecord) }
        if current.phase == .recording { return .rejected(.alreadyRecording(index: current.index)) }
        return startRecording(
            into: current.index,
            settings: RecordingSettings(recordsSound: recordsSound, maximumDuration: maximumTakeLength),
            position: 0, playbackStart: playbackStart)
    }

    /// Starts recording into the previewing canvas at `index`, with the other takes and the soundtrack playing from
    /// timeline time `position` at `playbackStart`.
    mutating func startRecording(
        into index: Int, settings: RecordingSettings, position: Double, playbackStart: HostTime
    ) -> Rule {
        selection = Selection(index: index, phase: .recording)
        let playback = SyncedPlayback(
            hostTime: playbackStart, takes: playingTakes(besides: index), position: position, soundtrack: soundtrack)
        return .accepted(Step.Effects(.startRecording(into: index, playback: playback, settings: settings)))
    }

    /// The takes that play while the canvas at `recording` records: every other canvas's, in canvas order.
    private func playingTakes(besides recording: Int) -> [SyncedPlayback.Take] {
        var takes: [SyncedPlayback.Take] = []
        slots.enumerateElements { index, slot in
            if index != recording, let take = slot.take {
                takes.append(SyncedPlayback.Take(index: index, segments: take.segments))
            }
        }
        return takes
    }

    private mutating func cancel() -> Rule {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        selection = Selection(index: index, phase: .inPreview)
        isResuming = false
        return .accepted(Step.Effects(.takeDiscarded(index: index)))
    }

    private func recordingStarted(at time: HostTime) -> Rule {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        return .accepted(Step.Effects(.recordingStarted(index: index, at: time)))
    }

    private mutating func recordingFailed(_ problem: RecorderProblem) -> Rule {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        selection = Selection(index: index, phase: .inPreview)
        isResuming = false
        return .accepted(Step.Effects(.recordingFailed(index: index, problem: problem)))
    }

    /// Ends the recording as `stop` with a playable file, as `cancel` without one (or with a file that is another
    /// canvas's take, which `stop` would refuse: the recorder has stopped, so the board cannot stay recording), and
    /// says which first.
    private mutating func recordingCutShort(
        _ problem: RecorderProblem, _ segment: Segment?, _ change: inout BoardChange
    ) -> Rule {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        if let segment, case .accepted(let effects) = stop(segment, &change) {
            let said = CanvasEffect.recordingCutShort(index: index, problem: problem, endedAs: .stop)
            return .accepted(Step.Effects(said, then: effects.array))
        }
        selection = Selection(index: index, phase: .inPreview)
        isResuming = false
        return .accepted(
            Step.Effects(
                .recordingCutShort(index: index, problem: problem, endedAs: .cancel),
                then: [.takeDiscarded(index: index)]))
    }

    private mutating func delete(_ index: Int, _ change: inout BoardChange) -> Rule {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        guard slots[index].hasTake else { return .rejected(.noTake(index: index)) }
        let removed = slots.update(at: index) { $0.removeTake()! }
        change.canvas = .take(index: index, firstFileChanged: true)
        return .accepted(Step.Effects(.takeRemoved(index: index, urls: removed.segments.map(\.url))))
    }

    private mutating func add(_ change: inout BoardChange) -> Rule {
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        let id = CanvasID(rawValue: nextIdentity)
        slots.append(Slot(id: id))
        nextIdentity += 1
        change.canvas = .list(.inserted(index: slots.count - 1, id: id))
        return .accepted(Step.Effects(.canvasesInserted(IndexSet(integer: slots.count - 1))))
    }

    private mutating func remove(_ index: Int, _ change: inout BoardChange) -> Rule {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        guard count > 1 else { return .rejected(.lastCanvas) }
        var effects: [CanvasEffect] = []
        if let current = selection {
            if current.index == index {
                effects.append(.detachPreview(from: index))
                selection = nil
                // The canvas goes with its model: nothing is written to it.
                change.selectionBefore = nil
            } else if current.index > index {
                // The previewing canvas keeps the preview; only its index shifts with the collection change.
                selection = Selection(index: current.index - 1, phase: current.phase)
                change.selectionBefore = selection
            }
        }
        if slots[index].hasTake {
            effects.append(.takeRemoved(index: index, urls: slots[index].takeSegments.map(\.url)))
        }
        change.canvas = .list(.removed(index: index, id: slots[index].id))
        slots.remove(at: index)
        effects.append(.canvasesRemoved(IndexSet(integer: index)))
        return .accepted(Step.Effects(effects))
    }
}
