import CanvasHost
import CanvasKit
import Foundation

/// Carries out the board's effects the way an AVFoundation app does (Docs/Apps.md, "AVFoundation: the effects", shows
/// the same class over `AVCaptureSession`, `AVCaptureVideoPreviewLayer` and `AVCaptureMovieFileOutput`). Here the
/// "camera" writes a take by copying a real video into the takes folder, so every cover is pulled from a real file,
/// and the log says what the app would do.
///
/// Main-actor isolated like the app's: it touches the collection view's cells. The controller sets ``collectionView``
/// and ``board`` when it makes its collection view; the recorder's "delegate" sends the finished take to the board.
@MainActor
final class CameraEffects: @MainActor CanvasEffectPerformer {
    /// The collection view whose cells the preview is attached to (set by the controller's `viewDidLoad`).
    weak var collectionView: CollectionHost<RecordingScreenController>?
    /// The board the finished takes are sent to (set by the controller's `viewDidLoad`).
    weak var board: CanvasBoard?
    /// The folder the recorder writes takes into (an app uses its documents or caches folder).
    let takesFolder: URL
    /// The video the simulated recorder writes for each take.
    private let footage: URL
    /// The cell the preview layer is attached to, and its canvas.
    private(set) var preview: (index: Int, cell: CanvasCellView)?
    /// The file being recorded, while recording.
    private var recording: URL?
    /// Whether the take being recorded is to be thrown away when the recorder hands it over (cancel).
    private var discardsTake = false
    private var takeNumber = 0
    /// What was done, one line per effect.
    private(set) var log: [String] = []

    init(takesFolder: URL, footage: URL) {
        self.takesFolder = takesFolder
        self.footage = footage
    }

    func perform(_ effect: CanvasEffect) {
        switch effect {
        case .attachPreview(let index), .movePreview(_, let index):
            // previewLayer.frame = cell.contentView.bounds; cell.contentView.layer.insertSublayer(previewLayer, at: 0)
            preview = collectionView?.cellForItem(at: [0, index]).map { (index, $0) }
            startSession()
        case .detachPreview:
            preview = nil  // previewLayer.removeFromSuperlayer()
        case .startRecording(let index, _):
            takeNumber += 1
            let take = takesFolder.appendingPathComponent("take-\(takeNumber)-canvas-\(index).mp4")
            recording = take  // movieOutput.startRecording(to: take, recordingDelegate: self)
        case .takeDiscarded:  // cancelled: stop, and delete the file when the recorder hands it over
            discardsTake = recording != nil
            if recording != nil { stopRecording() }
        case .takeReplaced(_, let oldURL), .takeRemoved(_, let oldURL):
            try? FileManager.default.removeItem(at: oldURL)  // the app's choice: it could keep it in a library
        case .takeInterrupted(_, let partial):
            // A draft's restore: the recording stopped with the app; this app does not keep partial takes.
            if let partial { try? FileManager.default.removeItem(at: partial) }
        case .takeFinished, .coverWanted, .canvasesInserted, .canvasesRemoved, .takeMissing, .draftRecordsDropped,
            .recordingStarted, .recordingFailed, .recordingCutShort:
            break  // the cell's view-model asks for the cover; the wiring applies list changes
        }
        log.append(effect.description)
    }

    /// `session.startRunning()` on the session's queue when it is not running: nothing to start here.
    private func startSession() {}

    /// `movieOutput.stopRecording()`: the recorder finishes the file and hands it to its delegate. Here the copy is the
    /// recording; a copy that fails is the delegate's `error`.
    func stopRecording() {
        guard let take = recording else { return }
        recording = nil
        do {
            try FileManager.default.copyItem(at: footage, to: take)
            recordingFinished(at: take, finished: true)
        } catch {
            log.append("recording failed: \(error.localizedDescription)")
            recordingFinished(at: take, finished: false)
        }
    }

    /// `fileOutput(_:didFinishRecordingTo:from:error:)`, on the main actor: a finished take goes to the board; a
    /// cancelled or failed one is deleted, and a failed one cancels the board's recording.
    private func recordingFinished(at url: URL, finished: Bool) {
        if discardsTake || !finished {
            discardsTake = false
            try? FileManager.default.removeItem(at: url)
            if !finished { board?.send(.cancel, performingEffectsWith: self) }
        } else {
            board?.send(.stop(url), performingEffectsWith: self)
        }
    }
}
