import CanvasKit
import Foundation

// The event scripts the board benchmarks (CanvasBenchmark, DraftBenchmark) replay, written once so both measure the
// same events.

/// Taps that move the preview around a board of `count` canvases: every tap is accepted and attaches or moves the
/// preview.
package func tapScript(count: Int, length: Int) -> [CanvasEvent] {
    var events: [CanvasEvent] = []
    var previous = -1
    for step in 0..<length {
        var index = (step * 7 + 3) % count
        if index == previous { index = (index + 1) % count }
        events.append(.tap(index))
        previous = index
    }
    return events
}

/// A recording session repeated `cycles` times: preview, record, stop into a fresh file in `folder`, move, record,
/// cancel, deselect, delete the take.
package func sessionScript(count: Int, cycles: Int, folder: String = "/bench/") -> [CanvasEvent] {
    var events: [CanvasEvent] = []
    let base = URL(fileURLWithPath: folder, isDirectory: true)
    for cycle in 0..<cycles {
        let i = (cycle * 7) % count
        let j = (i + 1) % count
        let take = URL(fileURLWithPath: "take-\(cycle).mov", relativeTo: base)
        events += [.tap(i), .record, .stop(take), .tap(j), .record, .cancel, .tap(j), .delete(i)]
    }
    return events
}
