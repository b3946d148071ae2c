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
/// preview layer) hops there itself.
public protocol CanvasEffectPerformer: AnyObject {
    /// Carries out one effect. Indexes refer to the board as it is when the effect is performed (see
    /// ``CanvasEffect``).
    func perform(_ effect: CanvasEffect)
}

extension CanvasBoard {
    /// Sends `event` to the board and hands the effects of an accepted event to `performer`, one by one in their
    /// order; a rejected event performs nothing.
    ///
    /// - Returns: the outcome, as ``send(_:)`` returns it.
    @discardableResult
    public func send(_ event: CanvasEvent, performingEffectsWith performer: some CanvasEffectPerformer)
        -> BoardOutcome
    {
        let outcome = send(event)
        for effect in outcome.effects {
            performer.perform(effect)
        }
        return outcome
    }
}
