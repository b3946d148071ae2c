import CanvasHost
import CanvasKit
import Foundation
import Observing

/// The recording screen, wired exactly as a UIKit app wires its view controller (Docs/Apps.md shows the UIKit file
/// beside this one, line for line). The headless `CollectionHost` stands where the app has its `UICollectionView`.
///
/// What it owns, and why:
/// - the board (the state machine and its observable canvas models);
/// - the wiring (`CanvasScreenWiring`): board list changes -> batch updates, cells bound in `cellForItem` and observing
///   only while displayed, the screen's disappear/appear;
/// - the collection view, whose data source and delegate this controller is: every call is forwarded to the wiring;
/// - the covers (`CoverService` through the CanvasCovers adapter, or any `CoverProvider`);
/// - the camera: the `CanvasEffectPerformer` that carries out what the board decides.
@MainActor
final class RecordingScreenController: CollectionHostDataSource, CollectionHostDelegate {
    let board: CanvasBoard
    let wiring: CanvasScreenWiring<CollectionHost<RecordingScreenController>>
    private(set) var collectionView: CollectionHost<RecordingScreenController>!
    let camera: CameraEffects
    private let covers: any CoverProvider

    init(canvasCount: Int, visibleCanvases: Int, covers: any CoverProvider, camera: CameraEffects) {
        board = CanvasBoard(canvasCount: canvasCount)
        wiring = CanvasScreenWiring(board: board)
        self.covers = covers
        self.camera = camera
        // viewDidLoad: make the collection view, become its data source and delegate, hand it to the wiring.
        collectionView = CollectionHost(dataSource: self, configuration: .init(viewportSize: visibleCanvases))
        collectionView.delegate = self
        wiring.collectionView = collectionView
        camera.collectionView = collectionView
        camera.board = board
    }

    // MARK: View lifecycle (UIKit calls these; here the host's appear/disappear reach the delegate methods below)

    func viewDidAppear() { collectionView.screenDidAppear() }
    func viewWillDisappear() { collectionView.screenWillDisappear() }

    // MARK: UICollectionViewDataSource

    func numberOfItems() -> Int { wiring.items.count }

    /// `dequeueReusableCell` making a new cell: UIKit makes the registered class with `init(frame:)`, empty.
    func makeCell() -> CanvasCellView { CanvasCellView() }

    /// `collectionView(_:cellForItemAt:)`, after the dequeue: the cell makes its view-model the first time, then the
    /// wiring binds it (observing nothing yet).
    func cellForItem(at index: Int, configuring cell: CanvasCellView) {
        cell.prepare(coverProvider: covers, binder: wiring.binder)
        wiring.configure(cell, at: [0, index])
    }

    // MARK: UICollectionViewDelegate

    func willDisplay(_ cell: CanvasCellView, at index: Int) {
        wiring.willDisplay(cell, at: [0, index])
    }

    func didEndDisplaying(_ cell: CanvasCellView, at index: Int) {
        wiring.didEndDisplaying(cell, at: [0, index])
    }

    func screenWillDisappear() { wiring.screenWillDisappear() }
    func screenDidAppear() { wiring.screenDidAppear() }

    // MARK: User actions (the app's buttons and the cell taps)

    /// `collectionView(_:didSelectItemAt:)`.
    @discardableResult
    func didSelectCanvas(at index: Int) -> CanvasRejection? {
        board.send(.tap(index), performingEffectsWith: camera).rejection
    }

    /// The record button.
    @discardableResult
    func recordTapped() -> CanvasRejection? {
        board.send(.record, performingEffectsWith: camera).rejection
    }

    /// The stop button: the recorder finishes its file, and its delegate sends the take to the board
    /// (`fileOutput(_:didFinishRecordingTo:from:error:)` in AVFoundation); a take the recorder failed to write cancels
    /// the board's recording, and the partial file is deleted.
    func stopTapped() { camera.stopRecording() }

    /// The cancel button: the take being recorded is thrown away.
    @discardableResult
    func cancelTapped() -> CanvasRejection? {
        board.send(.cancel, performingEffectsWith: camera).rejection
    }

    /// The add button of the toolbar: one more canvas at the end (the wiring inserts its item, no reload).
    func addCanvasTapped() {
        board.send(.add, performingEffectsWith: camera)
    }

    /// Scrolls so the canvas at `index` is on screen.
    func scrollToCanvas(at index: Int) { collectionView.scrollToItem(at: index) }
}
