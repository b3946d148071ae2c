import CanvasCovers
import CanvasKit
import Foundation
import Locking
import TestSupport
import Testing

@testable import Thumbnails

/// CoverService as CanvasKit's CoverProvider: what cell view-models see.
@Suite("CoverService as a CoverProvider")
struct CoverProviderTests {
    /// Requests the cover through the protocol and waits for the completion.
    private func cover(from provider: any CoverProvider, _ url: URL, maximumSize: PixelSize) async
        -> Result<CoverImage, any Error>
    {
        await withCheckedContinuation { continuation in
            _ = provider.loadCover(for: url, maximumSize: maximumSize) { continuation.resume(returning: $0) }
        }
    }

    @Test("a real fixture's cover arrives through the protocol as the service's own image")
    func realCover() async throws {
        let service = CoverService(maximumConcurrency: 1)
        let url = Fixtures.url("h264.mp4")
        let cover = try await cover(from: service, url, maximumSize: PixelSize(width: 160, height: 160)).get()
        #expect((cover.width, cover.height) == (160, 90))
        let image = try #require(service.cachedCover(for: url, maximumSize: PixelSize(width: 160, height: 160)))
        #expect(cover == image)
        // A cached cover is delivered before loadCover returns: a view-model asks the service's own request.
        let delivered = LockedValue(false)
        let provider: any CoverProvider = service
        _ = provider.loadCover(for: url, maximumSize: PixelSize(width: 160, height: 160)) { _ in
            delivered.withLock { $0 = true }
        }
        #expect(delivered.withLock { $0 })
    }

    @Test("with CanvasCovers imported, each request call on a CoverService names one method, even with { _ in }")
    func unambiguousCalls() {
        let service = CoverService(maximumConcurrency: 1)
        let url = Fixtures.url("h264.mp4")
        let size = PixelSize(width: 32, height: 32)
        // Thumbnails' own request (a CoverImage or a ThumbnailError) and CanvasKit's (a CanvasCover; a cancelled request
        // silent): both compile as written, without a type to pick an overload, each naming its own method.
        let image = service.requestCoverImage(for: url, maximumSize: size) { _ in }
        let canvas = service.requestCover(for: url, maximumSize: size) { _ in }
        #expect(type(of: image) == CoverRequest.self)
        #expect(canvas is CoverRequest, "CanvasKit's request is the service's, seen as a CancellableCoverRequest")
        image.cancel()
        canvas.cancel()
    }

    @Test("a cancelled request never calls its completion (the service's .cancelled is not passed on)")
    func cancel() async throws {
        // The first request takes the only decode slot, and its decode pauses at its first cancellation check (before
        // it opens the file) until the gate is released: the second request is certainly still pending when it is
        // cancelled. Without the gate the first decode, then the second, can both finish (a few milliseconds each in
        // release) while the test thread is descheduled between the request and its cancel().
        let gate = CheckGate(pauseAt: 1)
        let service = CoverService(
            generator: CoverGenerator(checkObserver: gate.observe), cache: CoverCache(capacity: 1 << 20),
            options: CoverOptions(skipsDarkFrames: true), maximumConcurrency: 1)
        let size = PixelSize(width: 64, height: 64)
        let first = Box<Result<CoverImage, any Error>>()
        _ = service.requestCover(for: Fixtures.url("vp9.webm"), maximumSize: size) { first.set($0) }
        await gate.waitUntilReached()
        let called = LockedValue(0)
        // CanvasKit's requirement, called on the service itself with a closure ignoring its argument: one overload only.
        let request = service.requestCover(for: Fixtures.url("hevc.mp4"), maximumSize: size) { _ in
            called.withLock { $0 += 1 }
        }
        request.cancel()
        request.cancel()
        #expect(called.withLock { $0 } == 0)
        gate.release()
        _ = try #require(await first.wait()).get()
        // The service still works for the same file, and the cancelled completion stayed silent.
        let again = try await cover(from: service, Fixtures.url("hevc.mp4"), maximumSize: size).get()
        #expect(again.width == 64)
        #expect(called.withLock { $0 } == 0)
        // The cancelled request's decode never ran: one decode for the first file, one for the request after.
        #expect(service.decodeCount == 2)
    }

    @Test("a broken or missing file gives the service's typed error with its one-line reason")
    func brokenFile() async throws {
        let service = CoverService()
        for (name, kind) in [
            ("not-a-video.mp4", ThumbnailError.Kind.notAMediaFile), ("no-such-file.mp4", .fileNotFound),
            ("audio-only.m4a", .noVideoStream),
        ] {
            let result = await cover(from: service, Fixtures.url(name), maximumSize: PixelSize(width: 64, height: 64))
            guard case .failure(let error) = result else {
                Issue.record("\(name) gave a cover")
                continue
            }
            let thumbnailError = try #require(error as? ThumbnailError)
            #expect(thumbnailError.kind == kind)
            #expect(String(describing: error) == thumbnailError.reason)
            #expect(thumbnailError.reason.contains(name))
            #expect(!thumbnailError.reason.contains("\n"))
        }
    }
}
