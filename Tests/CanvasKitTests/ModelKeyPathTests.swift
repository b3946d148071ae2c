import CanvasKit
import Locking
import Observing
import Testing

/// A key path to a model property written in another module than the model's (here, or in an app) is another
/// key path object than the one the property's getter passes, equal to it: it observes the property directly,
/// each time it is observed.
@Suite struct ModelKeyPathTests {
    @Test func aKeyPathWrittenOutsideTheModelsModuleObservesThePropertyEveryTime() {
        let board = CanvasBoard(canvasCount: 2)
        let model = board.canvases[1]
        let observer = KeyValueObserver()
        let seen = LockedValue<[CanvasStatus]>([])
        observer.observe(model, \.status, options: [.new]) { _, change in seen.withLock { $0.append(change.newValue!) }
        }
        observer.unobserve(model, \.status)
        observer.observe(model, \.status, options: [.prior, .new]) { _, change in
            seen.withLock { $0.append(change.isPrior ? .noPreview : change.newValue!) }
        }
        board.send(.tap(1))
        observer.unobserveAll()
        // A prior notification before the change: the property itself is observed, not a chain through it.
        #expect(seen.withLock { $0 } == [.noPreview, .inPreview])
    }
}
