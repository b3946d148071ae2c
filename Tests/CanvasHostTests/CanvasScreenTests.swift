import Dispatch
import Foundation
import Locking
import Observing
import Testing

@testable import CanvasHost
@testable import CanvasKit

@Suite("Canvas screen: list changes become batch updates")
@MainActor
struct CanvasScreenListChangeTests {
    @Test("add and remove become one insertion and one deletion each, never a reload")
    func addAndRemove() throws {
        let board = CanvasBoard(canvasCount: 3)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 4))
        screen.screenDidAppear()
        _ = board.send(.add)
        #expect(screen.host.statistics.batchUpdates == 1)
        #expect(screen.host.numberOfItems == 4)
        #expect(screen.visibleCells.count == 4)
        _ = board.send(.remove(0))
        #expect(screen.host.statistics.batchUpdates == 2)
        #expect(screen.adapter.items.map(\.id) == board.canvases.map(\.id))
        #expect(screen.reloadCount == 0)
    }

    @Test("a replacement and a whole-list setting are batch updates too")
    func replacementAndSetting() throws {
        let board = CanvasBoard(canvasCount: 3)
        let other = CanvasBoard(canvasCount: 5)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 5))
        screen.screenDidAppear()
        let replacement = other.canvases[4]
        screen.adapter.apply(
            ObservedChange(kind: .replacement, oldValue: nil, newValue: [replacement], indexes: [1]))
        #expect(screen.adapter.items[1] === replacement)
        #expect(screen.cell(at: 1).flatMap(screen.viewModel(of:))?.model === replacement)
        screen.adapter.apply(
            ObservedChange(kind: .setting, oldValue: nil, newValue: other.canvases, indexes: nil))
        #expect(screen.adapter.items.map(\.id) == other.canvases.map(\.id))
        #expect(screen.visibleCells.map { screen.viewModel(of: $0.cell)?.model?.id } == other.canvases.map(\.id))
        #expect(screen.host.statistics.batchUpdates == 2)
        #expect(screen.reloadCount == 0)
        #expect(screen.lastUpdateError == nil)
        #expect(screen.binder.log.violations.isEmpty)
    }
}

@Suite("Canvas screen: memory over a long session")
@MainActor
struct CanvasScreenSessionTests {
    @Test("by default the registration log keeps the live set and the audit, not the whole history")
    func defaultLogKeepsNoHistory() {
        let board = CanvasBoard(canvasCount: 40)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 6))
        screen.screenDidAppear()
        for step in 0..<200 { screen.scroll(toOffset: (step * 7) % 40) }
        #expect(screen.binder.log.entries.count == 0, "a long-lived screen must not grow with every scroll")
        #expect(screen.binder.log.liveCount == screen.visibleCells.count * CanvasCellViewModel.modelKeyPaths.count)
        #expect(screen.binder.log.violations.isEmpty)
        #expect(screen.binder.log.peakLiveCount > 0)
    }
}

@Suite("Canvas screen: list changes from other threads")
@MainActor
struct CanvasScreenThreadTests {
    /// Runs `body` on a thread of the global queue and waits for it without blocking the main actor.
    private nonisolated func onAnotherThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                body()
                done.resume()
            }
        }
    }

    @Test("add and remove sent from another thread reach the collection on the main actor, in order")
    func listChangesFromAnotherThread() async {
        let board = CanvasBoard(canvasCount: 3)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 4))
        screen.screenDidAppear()
        await onAnotherThread {
            board.send(.add)
            board.send(.remove(0))
            board.send(.add)
        }
        await drainMainQueue()
        #expect(screen.adapter.items.map(\.id) == board.canvases.map(\.id))
        #expect(screen.host.numberOfItems == 4)
        #expect(screen.host.statistics.batchUpdates == 3)
        #expect(screen.visibleCells.map { screen.viewModel(of: $0.cell)?.model?.id } == board.canvases.map(\.id))
        #expect(screen.reloadCount == 0)
        #expect(screen.lastUpdateError == nil)
    }

    @Test("a list change made on the main actor while an earlier one waits for the main queue is applied after it")
    func listChangeOnMainBehindOneFromAnotherThread() async {
        let board = CanvasBoard(canvasCount: 3)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 4))
        screen.screenDidAppear()
        let before = board.canvases.map(\.id)
        // Sent on another thread while the main actor waits (no suspension, so the main queue does not run meanwhile).
        DispatchQueue.global().sync { _ = board.send(.add) }
        // The insertion waits for the main queue; the removal made here must not overtake it.
        board.send(.remove(0))
        #expect(screen.adapter.items.map(\.id) == before, "both changes wait for the main queue, in order")
        await drainMainQueue()
        #expect(screen.adapter.items.map(\.id) == board.canvases.map(\.id))
        #expect(screen.host.statistics.batchUpdates == 2)
        #expect(screen.lastUpdateError == nil)
    }

    @Test("an add sent on the main actor while another thread applies a tap does not stop the program")
    func addOnMainWhileAnotherThreadDrains() async {
        let board = CanvasBoard(canvasCount: 2)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 4))
        screen.screenDidAppear()
        // The tap's first model write blocks its thread inside a handler until the main actor has sent `add`, so
        // the board queues the insertion behind the tap and the tapping thread performs it.
        let reached = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let blockOnce = LockedValue(true)
        let token = board.model(at: 0).observe(\.isSelected, options: [.new]) { _, _ in
            guard
                blockOnce.withLock({ first in
                    defer { first = false }
                    return first
                })
            else { return }
            reached.signal()
            proceed.wait()
        }
        async let tapped: Void = onAnotherThread { board.send(.tap(0)) }
        reached.wait()
        let reaction = board.send(.add)
        proceed.signal()
        await tapped
        token.invalidate()
        await drainMainQueue()
        #expect(reaction.isAccepted)
        #expect(screen.adapter.items.map(\.id) == board.canvases.map(\.id))
        #expect(screen.host.numberOfItems == 3)
        #expect(screen.reloadCount == 0)
        #expect(screen.lastUpdateError == nil)
    }
}
