import CanvasKit
import Locking
import Testing

@testable import Observing

/// A key path to a model property written in another module than the model's (here, or in an app) is another
/// key path object than the one the property's getter passes, equal to it. Observing it again reaches the
/// property's storage without evaluating the key path, as a key path written in the model's own module does.
@Suite struct ModelKeyPathTests {
    @Test func aKeyPathWrittenOutsideTheModelsModuleIsFoundWithoutEvaluatingItTheSecondTime() {
        let board = CanvasBoard(canvasCount: 2)
        let model = board.canvases[1]
        let context = ThreadContext.current
        let before = context.directProperty(\CanvasModel.status, of: model, as: CanvasStatus.self)
        let observer = KeyValueObserver()
        let seen = LockedValue<[CanvasStatus]>([])
        observer.observe(model, \.status, options: [.new]) { _, change in seen.withLock { $0.append(change.newValue!) }
        }
        let after = context.directProperty(\CanvasModel.status, of: model, as: CanvasStatus.self)
        observer.unobserve(model, \.status)
        // The second observation takes that path and still delivers.
        observer.observe(model, \.status, options: [.new]) { _, change in seen.withLock { $0.append(change.newValue!) }
        }
        board.send(.tap(1))
        observer.unobserveAll()
        #expect(before == nil)
        // (Under ThreadSanitizer nothing is remembered: every observation evaluates its key path.)
        #expect((after != nil) == ThreadContext.remembersDirectProperties)
        #expect(seen.withLock { $0 } == [.inPreview])
    }
}
