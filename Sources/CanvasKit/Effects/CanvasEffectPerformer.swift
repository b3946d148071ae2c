import Locking

/// Carries out what the board decided: the one place where a recording screen's state machine meets the camera, the
/// recorder and the files.
///
/// The board never touches the camera or the disk. Every accepted event returns its ``CanvasEffect``s, in the order
/// they must be carried out, and the host hands them to its performer: an app's performer drives AVFoundation (attach
/// the `AVCaptureVideoPreviewLayer` to a cell, start an `AVCaptureMovieFileOutput` recording, keep or remove take
/// files), the simulation's records them, a test's checks them.
///
/// ```swift
/// import CanvasKit
///
/// final class PrintingPerformer: CanvasEffectPerformer {
///     func perform(_ effect: CanvasEffect) { print(effect) }
/// }
///
/// let board = CanvasBoard(canvasCount: 4)
/// let performer = PrintingPerformer()
/// board.send(.tap(0), performingEffectsWith: performer)  // prints "attach preview to 0"
/// ```
///
/// Effects are performed on the thread that sent the event, after the board's models were written (so a performer
/// that reads a model sees the new state); a performer that must work on the main thread (UIKit, AVFoundation's
/// preview layer) hops there itself. The exception is write-ahead: on a board opened on a draft, an effect that gives
/// up a file (``CanvasEffect/givesUpFile``) is held back until the draft record of its event is durable, then
/// performed on the actor the event was sent from (a `@MainActor` performer gets it on the main actor), or on a
/// thread of the cooperative pool when the sender had no actor.
public protocol CanvasEffectPerformer: AnyObject {
    /// Carries out one effect. Indexes refer to the board as it is when the effect is performed (see
    /// ``CanvasEffect``); an effect held back for its record (``CanvasEffect/givesUpFile``) names its file, which is
    /// what the performer acts on, and its index is the canvas's at the event.
    func perform(_ effect: CanvasEffect)
}

extension CanvasEffect {
    /// Whether the effect gives up a file the user made (``takeReplaced(index:oldURLs:)``,
    /// ``takeRemoved(index:urls:)``, ``segmentRemoved(index:url:)``; the files are ``givenUpFiles``): a performer may remove it, so on a board opened on a draft it must not run before
    /// the record of its event is durable, or a power loss would bring the take back on its canvas with its file
    /// gone. (``takeDiscarded(index:)`` is not one: its file is a recording the user abandoned, and a lost `cancel`
    /// comes back as an interrupted take whose partial file the app removes anyway.)
    public var givesUpFile: Bool {
        switch self {
        case .takeReplaced, .takeRemoved, .segmentRemoved: true
        default: false
        }
    }
}

extension CanvasBoard {
    /// Sends `event` to the board and hands the effects of an accepted event to `performer`, one by one in their
    /// order; a rejected event performs nothing.
    ///
    /// Write-ahead: on a board opened on a draft, effects that give up a file (``CanvasEffect/givesUpFile``) are held
    /// back until the record of their event is durable (``BoardOutcome/draftRecord``), then performed in the order of
    /// their events on `isolation` (the caller's actor by default); every other effect is performed at once, on the
    /// calling thread. Nothing waits: the calling thread returns before the record is synced. Held effects are
    /// performed after every effect held before them, so a performer sees them in order even across events. A board
    /// without a draft performs everything at once.
    ///
    /// - Returns: the outcome, as ``send(_:)`` returns it.
    @discardableResult
    public func send<Performer: CanvasEffectPerformer>(
        _ event: CanvasEvent, performingEffectsWith performer: Performer,
        isolation: isolated (any Actor)? = #isolation
    ) -> BoardOutcome {
        let outcome = send(event)
        guard let draft, let record = outcome.draftRecord else {
            for effect in outcome.effects { performer.perform(effect) }
            return outcome
        }
        var held: [CanvasEffect] = []
        for effect in outcome.effects {
            if effect.givesUpFile {
                held.append(effect)
            } else {
                performer.perform(effect)
            }
        }
        guard !held.isEmpty else { return outcome }
        holdBack(held, until: record, of: draft, for: performer)
        return outcome
    }

    /// Hands the restore's effects (``BoardDraft/restore``) to `performer`, in their order: call it once, when the
    /// board was opened on a draft. A board without a draft performs nothing.
    ///
    /// Write-ahead, as for events: ``CanvasEffect/takeInterrupted(index:url:)`` with a file (a performer removes the
    /// partial take) is held back until the restore's own record (the `cancel` that ends the interrupted recording)
    /// is durable, then performed on `isolation` (the caller's actor by default), after any effect held before it;
    /// the other effects are performed at once, on the calling thread.
    public func performRestoreEffects<Performer: CanvasEffectPerformer>(
        with performer: Performer, isolation: isolated (any Actor)? = #isolation
    ) {
        guard let draft else { return }
        var held: [CanvasEffect] = []
        for effect in draft.restore.effects {
            if case .takeInterrupted(_, .some) = effect, draft.restoreRecord != nil {
                held.append(effect)
            } else {
                performer.perform(effect)
            }
        }
        guard let record = draft.restoreRecord, !held.isEmpty else { return }
        holdBack(held, until: record, of: draft, for: performer)
    }

    /// Performs `held` once `record` is durable, after every delivery held before: at once when nothing is held and it
    /// is durable already, otherwise in a task on `isolation`.
    private func holdBack<Performer: CanvasEffectPerformer>(
        _ held: [CanvasEffect], until record: UInt64, of draft: BoardDraft, for performer: Performer,
        isolation: isolated (any Actor)? = #isolation
    ) {
        let performsNow = heldEffects.withLock { held in held.tail == nil } && draft.isDurable(record)
        if performsNow {
            for effect in held { performer.perform(effect) }
            return
        }
        heldEffects.withLock { state in
            let previous = state.tail
            state.outstanding += 1
            state.tail = Task {
                _ = isolation
                await previous?.value
                await draft.durable(through: record)
                for effect in held { performer.perform(effect) }
                self.heldEffects.withLock { state in
                    state.outstanding -= 1
                    if state.outstanding == 0 { state.tail = nil }
                }
            }
        }
    }
}

/// The effects a board holds back for their records: a chain of deliveries, each after the one before it.
struct HeldEffects: Sendable {
    /// The last delivery started, until every delivery has finished.
    var tail: Task<Void, Never>?
    /// Deliveries started and not finished.
    var outstanding = 0
}
