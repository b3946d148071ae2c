import CanvasHost
import CanvasKit
import Dispatch
import Foundation
import Locking

/// Wraps a cover provider so that a simulation can wait, after each step, until every cover request in flight has
/// finished or been cancelled, which makes a step's output deterministic. It also remembers failures, and answers
/// nothing for simulated takes (files a script made up), which have no file to read.
final class SettlingCoverProvider: CompletionCoverProvider {
    private struct State {
        var simulated: Set<URL> = []
        var failures: [(url: URL, reason: String)] = []
    }

    private let base: (any CoverProvider)?
    private let group = DispatchGroup()
    private let state = LockedValue(State())

    init(base: (any CoverProvider)?) {
        self.base = base
    }

    /// The key a take is known by, whatever base its URL was written against.
    static func key(_ url: URL) -> URL { url.absoluteURL.standardizedFileURL }

    /// Marks `url` as a simulated take: no cover is asked for it.
    func markSimulated(_ url: URL) {
        _ = state.withLock { $0.simulated.insert(Self.key(url)) }
    }

    /// Whether `url` was marked simulated.
    func isSimulated(_ url: URL) -> Bool {
        state.withLock { $0.simulated.contains(Self.key(url)) }
    }

    func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest {
        guard let base, !isSimulated(videoURL) else { return InertCoverRequest() }
        let request = SettlingRequest(group: group)
        let inner = base.loadCover(for: videoURL, maximumSize: maximumSize) { [weak self] result in
            if case .failure(let error) = result {
                self?.state.withLock { $0.failures.append((videoURL, String(describing: error))) }
            }
            completion(result)
            request.settle()
        }
        request.attach(inner)
        return request
    }

    /// Blocks until every request made so far has completed or been cancelled.
    func waitUntilSettled() {
        group.wait()
    }

    /// The failures since the last call, oldest first.
    func takeFailures() -> [(url: URL, reason: String)] {
        state.withLock { state in
            defer { state.failures = [] }
            return state.failures
        }
    }
}

/// A request for a take that has no file: nothing to cancel.
private final class InertCoverRequest: CancellableCoverRequest {
    func cancel() {}
}

/// A request in flight, counted in a dispatch group until it completes or is cancelled (whichever comes first).
private final class SettlingRequest: CancellableCoverRequest {
    private struct State {
        var settled = false
        var inner: (any CancellableCoverRequest)?
    }

    private let group: DispatchGroup
    private let state = LockedValue(State())

    init(group: DispatchGroup) {
        self.group = group
        group.enter()
    }

    /// Keeps the provider's request for ``cancel()``, unless the request already completed (synchronously).
    func attach(_ inner: any CancellableCoverRequest) {
        state.withLock { state in
            if !state.settled { state.inner = inner }
        }
    }

    func settle() {
        let first = state.withLock { state -> Bool in
            defer { state.settled = true }
            state.inner = nil
            return !state.settled
        }
        if first { group.leave() }
    }

    func cancel() {
        let inner = state.withLock { $0.inner }
        inner?.cancel()
        settle()
    }
}
