import MediaCore
import Thumbnails

/// How a process whose work is making covers, one after another, sets up the C allocator.
///
/// A cover's big allocations are FFmpeg's: its decoded frames (3 MB for 1080p, 12 MB for 4K),
/// zero-filled when its buffer pool makes them, and the decoder's tables. With glibc's default
/// thresholds, what one cover frees goes back to the kernel (a mapping of its own unmapped, the
/// heap's top trimmed), so the next cover maps it again and faults in and zeroes every page:
/// about 1,500 page faults per 1080p cover, a quarter of its CPU time.
/// ``keepFreedMemory()`` keeps that memory in the process for the next cover instead.
public enum CoverMemory {
    /// Allocations below this many bytes come from the allocator's heap: 32 MiB, the most glibc
    /// accepts, above any frame a 4K decode allocates.
    public static let heapAllocationLimit = 32 << 20

    /// Memory is given back to the kernel only when more than this many bytes are free at the top
    /// of a heap: 256 MiB, above what a 4K cover frees at once.
    public static let retainedFreeMemory = 256 << 20

    /// Asks the C allocator (glibc's malloc) to keep the memory a cover frees for the next one:
    /// allocations below ``heapAllocationLimit`` are served from its heap, and free memory is
    /// returned to the kernel only beyond ``retainedFreeMemory``. The process's resident memory
    /// then stays near the peak of its largest cover (a few MB above the default: 58 against
    /// 55 MB for a batch of 1080p covers) instead of falling back between covers.
    ///
    /// The settings are process-wide and last until the process ends, so this is for programs
    /// whose work is covers: `canvas-thumb` calls it before a batch, and
    /// ``CoverWorker/serve(options:format:)`` in every worker process. A library that makes a
    /// cover now and then inside an app has no need of it.
    ///
    /// - Returns: true when the allocator took the settings; false on a C library other than
    ///   glibc (nothing is changed then).
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        FFmpeg.keepFreedMemory(heapAllocationLimit: heapAllocationLimit, retainedFreeMemory: retainedFreeMemory)
    }
}
