import Dispatch
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A file swapped for a FIFO between an input's first opening and a later one, deterministically: on a thread of its
/// own, ``run(at:opening:reopening:)`` opens the input, replaces the file at its path with a FIFO holding ``bait``
/// (the test keeps the FIFO's writing end, so a reader's open of it would not block and a read would find bytes),
/// then opens it again. What the reopening did to the FIFO shows in the bytes left in it.
package enum FIFOSwap {
    /// The bytes put in the FIFO.
    package static let bait = Data(repeating: 0x47, count: 4096)

    /// What the reopening did.
    package struct Outcome<Failure: Error>: Sendable {
        /// What it returned or threw.
        package let result: Result<Void, Failure>
        /// Whether it had not returned after a generous wait (a minute), so the test ended its read by closing the
        /// FIFO's writing end.
        package let blocked: Bool
        /// How many bytes of ``bait`` were still in the FIFO when it returned (all of them when nothing read it).
        package let baitLeft: Int
    }

    private struct State<Failure: Error>: Sendable {
        var descriptor: Int32 = -1
        var failure: Result<Void, Failure>?
        var setUp: (any Error)?
    }

    /// Runs `opening`, swaps the file at `path` for a baited FIFO, then runs `reopening` with what `opening` returned,
    /// all on one new thread (the opened value never crosses threads).
    ///
    /// - Throws: what `opening` or the swap threw.
    package static func run<Opened, Failure: Error>(
        at path: URL, opening: @escaping @Sendable () throws -> Opened,
        reopening: @escaping @Sendable (Opened) throws(Failure) -> Void
    ) throws -> Outcome<Failure> {
        let state = SwapState<State<Failure>>(State())
        let finished = DispatchSemaphore(value: 0)
        Thread {
            defer { finished.signal() }
            do {
                let opened = try opening()
                let descriptor = try swapForFIFO(path)
                state.update { $0.descriptor = descriptor }
                let result = Result { () throws(Failure) in try reopening(opened) }
                state.update { $0.failure = result }
            } catch {
                state.update { $0.setUp = error }
            }
        }.start()
        // A hang guard, not a timing: a reader of the FIFO reads the bait, then waits for more (the writing end is
        // open); closing the writing end gives it the end of the file.
        var blocked = false
        if finished.wait(timeout: .now() + 60) == .timedOut {
            blocked = true
            state.update { state in
                close(state.descriptor)
                state.descriptor = -1
            }
            finished.wait()
        }
        let ended = state.update { $0 }
        if let error = ended.setUp { throw error }
        var left: Int32 = 0
        if ended.descriptor >= 0 {
            _ = ioctl(ended.descriptor, UInt(FIONREAD), &left)
            close(ended.descriptor)
        }
        guard let result = ended.failure else { throw POSIXError(.EIO) }
        return Outcome(result: result, blocked: blocked, baitLeft: Int(left))
    }

    /// Replaces the file at `path` with a FIFO holding ``bait`` and returns the descriptor of its writing end (opened
    /// for reading and writing, so it neither blocks nor ends the FIFO).
    private static func swapForFIFO(_ path: URL) throws -> Int32 {
        try FileManager.default.removeItem(at: path)
        guard mkfifo(path.path, 0o600) == 0 else { throw POSIXError(.EEXIST) }
        let descriptor = open(path.path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        let written = bait.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bait.count else {
            close(descriptor)
            throw POSIXError(.EIO)
        }
        return descriptor
    }
}

/// A value shared by two threads under a lock.
private final class SwapState<Value: Sendable>: Sendable {
    private let storage: LockedValue<Value>
    init(_ value: Value) { storage = LockedValue(value) }
    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
