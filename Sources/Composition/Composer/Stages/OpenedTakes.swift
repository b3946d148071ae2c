import Foundation
import MediaCore

/// The open stage: every take of a plan opened, its video feed started and opened, before anything is written.
///
/// Takes are opened in plan order; the context that probed a take goes on to read its video on the take's feed
/// thread (a ``TileFeed``), which starts decoding at once while the next takes are opened. The first failure, in plan
/// order, is the composition's. ``stop()`` tells every feed to stop and waits for its thread, so a take is closed
/// before the result is reported whatever happened.
final class OpenedTakes {
    /// Every take, in plan order.
    private(set) var sources: [TakeSource] = []
    /// The plan's soundtrack, opened.
    private(set) var music: AudioTrack?
    /// The tiles of the takes with video, in plan order.
    private(set) var layers: [TileLayer] = []
    private var feeds: [TileFeed] = []
    /// Set by ``stop()``, read by every feed and take with the caller's cancellation.
    private let stopping = CancellationToken()

    /// Opens `plan`'s takes (a validated plan); `cancellation` interrupts the opening and, later, the feeds.
    init(_ plan: CompositionPlan, cancellation: CancellationToken) throws(CompositionError) {
        let stopping = stopping
        let shouldStop = { @Sendable in cancellation.isCancelled || stopping.isCancelled }
        // Decoders share the cores with each other and with the encoder: frame threads only for a lone take.
        let decoderThreads = max(
            1, min(4, ProcessInfo.processInfo.activeProcessorCount / max(1, 2 * plan.takes.count)))
        var tiles: [(source: TakeSource, feed: TileFeed)] = []
        do throws(CompositionError) {
            for (order, take) in plan.takes.enumerated() {
                if cancellation.isCancelled { throw CompositionError.cancelled }
                let input = try TakeSource.probe(take, order: order, shouldStop: shouldStop)
                let first = try TakeSegment(
                    input, file: take.file, fail: TakeSource.failing(take, file: take.file, order: order))
                let source = try TakeSource(
                    take: take, order: order, origin: plan.timelineOrigin, first: first, shouldStop: shouldStop)
                sources.append(source)
                guard source.hasVideo else { continue }
                // The feed reads the first segment from the context that probed it, when that segment has video.
                let feed = TileFeed(
                    input: input, segments: source.segments, region: take.region,
                    output: plan.size, scaling: take.scaling, offset: source.offset, frameRate: plan.frameRate,
                    decoderThreads: decoderThreads, shouldStop: shouldStop, fail: source.fail)
                feeds.append(feed)
                tiles.append((source, feed))
            }
            if let soundtrack = plan.soundtrack {
                music = try soundtrack.open(
                    origin: plan.timelineOrigin, interruption: Interruption(isRequested: shouldStop))
            }
            for (source, feed) in tiles {
                switch feed.next() {
                case .opened(let slots): layers.append(TileLayer(source: source, feed: feed, slots: slots))
                case .failure(let error): throw error
                case .picture, .unchanged, .end: throw CompositionError.cancelled
                }
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Where the output ends: the end of the take that ends last, in seconds of the output's timeline.
    var duration: Double { sources.map { $0.offset + $0.duration }.max() ?? 0 }

    /// Tells every feed's thread to stop (it may be waiting for room or for a slot) and waits until it has ended,
    /// its take closed.
    func stop() {
        stopping.cancel()
        for feed in feeds { feed.stop() }
    }
}
