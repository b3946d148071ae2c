import Foundation
import Locking
import MediaCore
import Pixels
import Synchronization

/// One take's pictures, decoded and scaled on a thread of its own, handed to the composing thread one output frame at
/// a time through a bounded queue: the takes of a composition decode in parallel, each at most ``depth`` output frames
/// ahead, so memory stays bounded whatever the takes' length.
///
/// The feed's thread opens the take's video decoder (the first item says whether it could, and gives the tile's
/// ``TileSlots``), then, for every output frame, says whether the take's tile changed and, if so, which slot holds
/// its new picture, scaled into that slot straight from the decoded frame. After the take's last frame it ends: the
/// composing thread keeps showing that picture (the hold policy).
///
/// Slots are recycled in the order they were filled: the composing thread hands a slot back (``release(_:)``) when
/// the tile shows a newer picture, and the feed's thread takes a slot back before it scales into it, so no picture is
/// allocated or copied per frame on the feed's side.
final class TileFeed: Sendable {
    /// What the feed's thread hands the composing thread.
    enum Item: Sendable {
        /// The take's decoder is open; where its picture goes and the slots its pictures arrive in.
        case opened(TileSlots)
        /// The tile for the next output frame changed: its new picture is in this slot of the feed's ``TileSlots``,
        /// the composing thread's until it hands it back with ``release(_:)``.
        case picture(slot: Int)
        /// The tile for the next output frame is the one before (or still none, before the take starts).
        case unchanged
        /// No more changes: the last picture holds until the end.
        case end
        /// The take failed (or the composition stopped).
        case failure(CompositionError)
    }

    /// Output frames a feed may run ahead of the composing thread.
    static let depth = 3
    /// The tile's pictures: one per queued item, the one shown, the one being scaled.
    static let slotCount = depth + 2

    private let queue = FrameQueue<Item>(capacity: TileFeed.depth)
    /// The slots the feed's thread may scale into, in the order it filled them; -1 tells it to stop. Room for every
    /// slot and that one -1.
    private let free = FrameQueue<Int>(capacity: TileFeed.slotCount + 1)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// The take's first file opened, handed from the thread that probed it to the feed's thread, which takes it out
    /// once.
    private let input: LockedValue<FormatContext?>

    /// Starts the thread that feeds the tiles of `segments` (a take's, placed on its clock; `input` is the first
    /// one's file, opened and probed with nothing read from it since, read when that segment has video) for output frames
    /// 0, 1, ... at `frameRate`, the take's time 0 falling `offset` seconds into the output, until the take's last
    /// frame; it stops early once `shouldStop` says so or ``stop()`` is called.
    init(
        input: consuming sending FormatContext, segments: [TakeSegment], region: NormalizedRect, output: PixelSize,
        scaling: CompositionPlan.Scaling, offset: Double, frameRate: FrameRate, decoderThreads: Int,
        shouldStop: @escaping @Sendable () -> Bool, fail: @escaping @Sendable (String) -> CompositionError
    ) {
        self.input = LockedValue(input)
        for slot in 0..<Self.slotCount { free.push(slot) }
        let thread = Thread { [self] in
            defer { finished.signal() }
            Self.yieldToTheEncoder()
            let track: VideoTrack
            let slots: TileSlots
            do throws(CompositionError) {
                track = try VideoTrack(
                    first: self.input.withLock { $0.take() }, segments: segments, region: region, output: output,
                    scaling: scaling, decoderThreads: decoderThreads,
                    interruption: Interruption(isRequested: shouldStop),
                    fail: fail)
                slots = try TileSlots(placement: track.placement, count: Self.slotCount, fail: fail)
            } catch {
                queue.push(.failure(error))
                return
            }
            guard queue.push(.opened(slots)) else { return }
            guard !track.placement.visible.isEmpty else {
                queue.push(.end)
                return
            }
            do throws(CompositionError) {
                var index = 0
                while true {
                    if shouldStop() { throw CompositionError.cancelled }
                    let shown = try track.advance(to: frameRate.time(ofFrame: index) - offset)
                    index += 1
                    guard let shown else {
                        if track.isFinished { break }
                        guard queue.push(.unchanged) else { return }
                        continue
                    }
                    let slot = free.pop()
                    guard slot >= 0 else { return }
                    try track.scale(shown, into: slots.frame(slot))
                    guard queue.push(.picture(slot: slot)) else { return }
                }
                queue.push(.end)
            } catch {
                queue.push(.failure(error))
            }
        }
        thread.name = "Composition take"
        thread.start()
    }

    /// Lowers the calling thread's priority below the composing thread's and libx264's (on Linux, its nice value 5
    /// above theirs: there it is the thread's own, not the process's). At moments libx264's lookahead works alone, its
    /// frame threads and the composing thread waiting for it. At equal priority the feeds have filled their queues by
    /// then and wait too, so a core stays idle; below the encoder they decode with the time it leaves, their queues
    /// are seldom full, and they fill that core. Nothing else changes: the same work, done sooner.
    private static func yieldToTheEncoder() {
        #if os(Linux)
            _ = nice(5)
        #endif
    }

    /// The next item, waiting for the feed's thread.
    func next() -> Item { queue.pop() }

    /// Hands `slot` back to the feed's thread: the composing thread no longer reads it. Slots are handed back in the
    /// order their pictures arrived.
    func release(_ slot: Int) {
        free.push(slot)
    }

    /// Tells the feed's thread to stop (if it has not ended) and waits until it has: its files are closed then.
    /// Idempotent.
    func stop() {
        queue.close()
        if !stopping.exchange(true, ordering: .relaxed) { free.push(-1) }
        finished.wait()
        finished.signal()
    }
}

/// The scaled pictures of one take's tile: ``TileFeed/slotCount`` 4:2:0 frames of the tile's scaled size, written by
/// the take's feed thread and read by the composing thread.
///
/// `@unchecked Sendable` because the frames are mutable memory reached from two threads; it is safe because each slot
/// is reached by one thread at a time, and every hand-over is ordered by a lock. The feed's thread writes a slot only
/// after taking its index from its free list and stops before queuing `.picture(slot:)`; the composing thread reads
/// the slot only after taking that item from the queue and stops before handing the index back to the free list
/// (``TileFeed/release(_:)``). Both are ``FrameQueue``s, whose items change hands under a lock (a `LockedValue`,
/// which ThreadSanitizer sees), so every write of a slot happens before the reads that follow it and every read
/// before the next write. The frames are made before the slots are published (in `.opened`) and never replaced.
final class TileSlots: @unchecked Sendable {
    let placement: TilePlacement
    private let frames: [Frame]

    /// `count` pictures for a tile at `placement` (none when nothing of it shows).
    init(
        placement: TilePlacement, count: Int, fail: (String) -> CompositionError
    ) throws(CompositionError) {
        self.placement = placement
        let size = placement.scaledSize
        guard !placement.visible.isEmpty else {
            frames = []
            return
        }
        do {
            frames = try (0..<count).map { _ throws(FFmpegError) in
                try Frame.yuv420(width: size.width, height: size.height)
            }
        } catch {
            throw fail("cannot allocate its tile: \(TakeSource.reason(error))")
        }
    }

    /// Slot `index`'s frame.
    func frame(_ index: Int) -> Frame { frames[index] }

    /// Copies the visible part of slot `index`'s picture (``TilePlacement/visible``, cut at
    /// ``TilePlacement/cropOrigin``) into `picture`, a 4:2:0 output frame, where it shows. Offsets and sizes are
    /// even, so chroma is copied exactly.
    func draw(_ index: Int, into picture: Frame) {
        let visible = placement.visible
        guard !visible.isEmpty else { return }
        let tile = frames[index]
        for plane in 0..<3 {
            guard let source = tile.plane(plane), let target = picture.plane(plane) else { continue }
            let shift = plane == 0 ? 0 : 1
            let width = visible.width >> shift
            let from =
                source.base + (placement.cropOrigin.y >> shift) * source.stride + (placement.cropOrigin.x >> shift)
            let to = target.base + (visible.y >> shift) * target.stride + (visible.x >> shift)
            for row in 0..<(visible.height >> shift) {
                (to + row * target.stride).update(from: from + row * source.stride, count: width)
            }
        }
    }
}
