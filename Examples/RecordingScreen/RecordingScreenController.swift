import CanvasHost
import CanvasKit

/// The recording screen's view controller. It owns the board, the collection view, the adapter (the collection view's
/// data source and delegate: cells, display hooks, list changes, the preview's cell, taps) and the camera that
/// carries out the board's effects. The headless collection view stands where the app has its `UICollectionView`.
@MainActor
final class RecordingScreenController {
    let board: CanvasBoard
    let collectionView: HeadlessCollectionView
    let adapter: CanvasScreenAdapter<HeadlessCollectionView, CanvasCellView>
    let camera: CameraEffects
    /// Why the last tap was refused, if it was (the app would show it).
    private(set) var lastTapRejection: CanvasRejection?

    init(canvasCount: Int, visibleCanvases: Int, covers: any CoverProvider, camera: CameraEffects) {
        board = CanvasBoard(canvasCount: canvasCount)
        self.camera = camera
        collectionView = HeadlessCollectionView(configuration: .init(viewportSize: visibleCanvases))
        adapter = CanvasScreenAdapter(
            board: board, collectionView: collectionView, cellType: CanvasCellView.self, coverProvider: covers)
        adapter.performer = camera
        adapter.tapHandler = { [weak self] _, outcome in self?.lastTapRejection = outcome.rejection }
        camera.board = board
    }

    func viewDidAppear() { collectionView.screenDidAppear() }
    func viewWillDisappear() { collectionView.screenWillDisappear() }

    /// The user taps the cell at `index`: the adapter sends the tap to the canvas that cell shows.
    func didTapCell(at index: Int) -> CanvasRejection? {
        lastTapRejection = nil
        collectionView.selectItem(at: index)
        return lastTapRejection
    }

    func recordTapped() -> CanvasRejection? { adapter.send(.record).rejection }
    /// The recorder finishes its file; its delegate sends the take to the board.
    func stopTapped() { camera.stopRecording() }
    func cancelTapped() -> CanvasRejection? { adapter.send(.cancel).rejection }
    func addCanvasTapped() { adapter.send(.add) }
    func scrollToCanvas(at index: Int) { collectionView.scrollToItem(at: index) }
}
