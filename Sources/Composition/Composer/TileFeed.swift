import Foundation
import Locking
import MediaCore
import Pixels

/// One take's pictures, decoded and scaled on a thread of its own, handed to the composing thread one output frame at
/// a time through a bounded queue: the takes of a composition decode in parallel, each at most ``depth`` output frames
/// ahead, so memory stays bounded whatever the takes' length.
///
/// The feed's thread opens the take's video (the first item says whether it could), then, for every output frame,
/// says whether the take's tile changed and, if so, what it now shows (its visible part, packed 4:2:0). After the
/// take's last frame it ends: the composing thread keeps showing that frame (the hold policy).
final class TileFeed: Sendable {
    /// What the feed's thread hands the composing thread.
    enum Item: Sendable {
        /// The take is open; where its picture goes.
        case opened(TilePlacement)
        /// The tile for the next output frame changed: its visible part, packed 4:2:0 (Y, Cb, Cr).
        case picture([UInt8])
        /// The tile for the next output frame is the one before (or still none, before the take starts).
        case unchanged
        /// No more changes: the last picture holds until the end.
        case end
        /// The take failed (or the composition stopped).
        case failure(CompositionError)
    }

    /// Output frames a feed may run ahead of the composing thread.
    static let depth = 3

    private let queue = FrameQueue<Item>(capacity: TileFeed.depth)
    private let finished = DispatchSemaphore(value: 0)
    /// The take's opened input, handed from the thread that probed it to the feed's thread, which takes it out once.
    private let input: LockedValue<FormatContext?>

    /// Starts the thread that feeds the tiles of `stream` (a video stream of `input`, an opened and probed take
    /// nothing has read from since) for output frames 0, 1, ... at `frameRate`, the take's time 0 falling `offset`
    /// seconds into the output, until the take's last frame; it stops early once `shouldStop` says so or ``stop()``
    /// is called.
    init(
        input: consuming sending FormatContext, stream: StreamParameters, region: NormalizedRect, output: PixelSize,
        scaling: CompositionPlan.Scaling, offset: Double, frameRate: FrameRate, decoderThreads: Int,
        shouldStop: @escaping @Sendable () -> Bool, fail: @escaping @Sendable (String) -> CompositionError
    ) {
        self.input = LockedValue(input)
        let queue = queue
        let finished = finished
        let thread = Thread { [self] in
            defer { finished.signal() }
            let track: VideoTrack
            do throws(CompositionError) {
                guard let format = self.input.withLock({ $0.take() }) else { throw CompositionError.cancelled }
                track = try VideoTrack(
                    format: format, stream: stream, region: region, output: output, scaling: scaling,
                    decoderThreads: decoderThreads, fail: fail)
            } catch {
                queue.push(.failure(error))
                return
            }
            guard queue.push(.opened(track.placement)) else { return }
            guard !track.placement.visible.isEmpty else {
                queue.push(.end)
                return
            }
            do throws(CompositionError) {
                var index = 0
                while true {
                    if shouldStop() { throw CompositionError.cancelled }
                    defer { index += 1 }
                    let changed = try track.advance(to: frameRate.time(ofFrame: index) - offset)
                    if !changed, track.isFinished { break }
                    let item = changed ? track.visiblePixels().map(Item.picture) ?? .unchanged : .unchanged
                    guard queue.push(item) else { return }
                }
                queue.push(.end)
            } catch {
                queue.push(.failure(error))
            }
        }
        thread.name = "Composition take"
        thread.start()
    }

    /// The next item, waiting for the feed's thread.
    func next() -> Item { queue.pop() }

    /// Tells the feed's thread to stop (if it has not ended) and waits until it has: its files are closed then.
    /// Idempotent.
    func stop() {
        queue.close()
        finished.wait()
        finished.signal()
    }
}
