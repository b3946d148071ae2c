import CanvasKit
import CanvasTestSupport
import Foundation
import Locking
import Observing
import Testing

/// A provider written only in the async form, as an app writes one over `AVAssetImageGenerator.image(at:)`: a plain
/// final class, no request type, no `@unchecked Sendable`. It waits until `release()` or its task's cancellation, and
/// reports each start and each cancellation it saw.
private final class AsyncOnlyProvider: CoverProvider {
    private let waiting = LockedValue<[CheckedContinuation<Void, Never>]>([])
    let events: AsyncStream<String>
    private let report: AsyncStream<String>.Continuation

    init() {
        (events, report) = AsyncStream.makeStream(of: String.self)
    }

    func cover(for videoURL: URL, maximumSize: PixelSize) async throws -> CoverImage {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.withLock { $0.append(continuation) }
                report.yield("started")
            }
        } onCancel: {
            self.release()
        }
        if Task.isCancelled {
            report.yield("cancelled")
            throw CancellationError()
        }
        return FakeCoverProvider.image(for: videoURL)
    }

    /// Lets every waiting cover finish.
    func release() {
        for continuation in waiting.withLock({ state in
            defer { state.removeAll() }
            return state
        }) {
            continuation.resume()
        }
    }
}

/// Where a completion-form request delivered its result.
private final class Delivery: Sendable {
    private let results = LockedValue<[Result<CoverImage, any Error>]>([])
    let arrived: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init() { (arrived, signal) = AsyncStream.makeStream(of: Void.self) }

    func record(_ result: Result<CoverImage, any Error>) {
        results.withLock { $0.append(result) }
        signal.yield()
    }

    var count: Int { results.withLock { $0.count } }
    var first: Result<CoverImage, any Error>? { results.withLock { $0.first } }
}

@Suite("CoverProvider: one async requirement; a completion-handler provider adapts through CompletionCoverProvider")
struct CoverProviderFormsTests {
    let url = URL(fileURLWithPath: "/takes/a.mov")
    let size = PixelSize(width: 320, height: 320)

    @Test("an async-only provider serves the completion form that cell view-models use")
    func completionOverAsync() async throws {
        let provider = AsyncOnlyProvider()
        let delivery = Delivery()
        var events = provider.events.makeAsyncIterator()
        _ = provider.loadCover(for: url, maximumSize: size) { delivery.record($0) }
        #expect(await events.next() == "started")
        provider.release()
        var arrived = delivery.arrived.makeAsyncIterator()
        await arrived.next()
        #expect(delivery.count == 1)
        #expect(try delivery.first?.get() == FakeCoverProvider.image(for: url))
    }

    @Test("cancelling the completion form's request cancels the provider's task, and nothing is delivered")
    func cancellingTheRequestCancelsTheTask() async {
        let provider = AsyncOnlyProvider()
        let delivery = Delivery()
        var events = provider.events.makeAsyncIterator()
        let request = provider.loadCover(for: url, maximumSize: size) { delivery.record($0) }
        #expect(await events.next() == "started")
        request.cancel()
        #expect(await events.next() == "cancelled")
        #expect(delivery.count == 0)
    }

    @Test("a completion-handler provider, adapted through CompletionCoverProvider, serves the async requirement")
    func asyncOverCompletion() async throws {
        let provider = FakeCoverProvider(completesImmediately: true)
        let cover = try await provider.cover(for: url, maximumSize: size)
        #expect(cover == FakeCoverProvider.image(for: url))
        #expect(provider.all.count == 1)
    }

    @Test("loadCover asks a completion provider directly: a cached cover arrives before it returns")
    func loadCoverCallsTheCompletionProviderDirectly() throws {
        let provider: any CoverProvider = FakeCoverProvider(completesImmediately: true)
        let delivery = Delivery()
        _ = provider.loadCover(for: url, maximumSize: size) { delivery.record($0) }
        #expect(delivery.count == 1)
        #expect(try delivery.first?.get() == FakeCoverProvider.image(for: url))
    }

    @Test("cancelling the async form's task cancels the request and throws CancellationError")
    func cancellingTheTaskCancelsTheRequest() async {
        let provider = FakeCoverProvider()
        let url = self.url
        let size = self.size
        let task = Task { try await provider.cover(for: url, maximumSize: size) }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(provider.pending.isEmpty, "a request that was started is cancelled")
    }

    @Test("an async-only provider feeds a cell view-model's cover")
    @MainActor
    func viewModelOverAsyncProvider() async {
        let provider = AsyncOnlyProvider()
        var events = provider.events.makeAsyncIterator()
        let board = CanvasBoard(canvasCount: 2)
        for event: CanvasEvent in [.tap(0), .record, .stop(url), .tap(1)] { board.send(event) }
        let viewModel = CanvasCellViewModel(coverProvider: provider)
        let (covers, arrived) = AsyncStream.makeStream(of: Void.self)
        let token = viewModel.observe(\.cover, options: [.new]) { _, _ in arrived.yield() }
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        #expect(await events.next() == "started")
        provider.release()
        var iterator = covers.makeAsyncIterator()
        await iterator.next()
        #expect(viewModel.cover == FakeCoverProvider.image(for: url))
        token.invalidate()
    }
}
