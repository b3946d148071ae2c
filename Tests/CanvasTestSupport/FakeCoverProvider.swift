import CanvasKit
import Foundation
import Locking

/// A cover provider that records requests and cancellations and completes only when told to.
package final class FakeCoverProvider: CompletionCoverProvider {
    package final class Request: CancellableCoverRequest {
        package let url: URL
        private let cancelled = LockedValue(false)
        package let completion: @Sendable (Result<CoverImage, any Error>) -> Void

        init(url: URL, completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void) {
            self.url = url
            self.completion = completion
        }

        package var isCancelled: Bool { cancelled.withLock { $0 } }

        package func cancel() {
            cancelled.withLock { $0 = true }
        }
    }

    private let requests = LockedValue<[Request]>([])
    /// When true, every request completes before `requestCover` returns (a cache hit).
    package let completesImmediately: Bool

    package init(completesImmediately: Bool = false) {
        self.completesImmediately = completesImmediately
    }

    package func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest {
        let request = Request(url: videoURL, completion: completion)
        requests.withLock { $0.append(request) }
        if completesImmediately { completion(.success(Self.image(for: videoURL))) }
        return request
    }

    /// Every request so far.
    package var all: [Request] { requests.withLock { $0 } }

    /// The requests neither cancelled nor completed.
    package var pending: [Request] { requests.withLock { $0 }.filter { !$0.isCancelled } }

    /// Completes every request not cancelled, with its take's image (``image(for:)``).
    package func completeAll() {
        let open = requests.withLock { requests in
            defer { requests.removeAll() }
            return requests
        }
        for request in open where !request.isCancelled {
            request.completion(.success(Self.image(for: request.url)))
        }
    }

    /// The cover the fake delivers for `url`: one opaque grey pixel per byte of its path, so that the covers of two
    /// takes differ and a test can tell which take a cover shows.
    package static func image(for url: URL) -> CoverImage {
        let bytes = Array(url.path.utf8)
        // The sizes are consistent by construction (one row of `bytes.count` RGBA pixels); a URL with an empty path
        // is a mistake in the test.
        return try! CoverImage(
            width: bytes.count, height: 1, bytesPerRow: bytes.count * 4, pixelFormat: .rgba,
            pixels: bytes.flatMap { [$0, $0, $0, 255] })
    }
}
