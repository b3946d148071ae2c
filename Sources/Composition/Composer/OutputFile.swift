import Foundation
import MediaCore

/// The output written atomically: a hidden temporary file beside it, renamed over it only once complete.
enum OutputFile {
    /// A fresh temporary path in the output's folder (`.NAME.composing-PID-RANDOM`), after checking that the folder
    /// exists and the output is not a folder, device, FIFO or socket.
    static func temporaryPath(for output: URL) throws(CompositionError) -> URL {
        let folder = output.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw CompositionError(.output, "cannot write \(output.path): no such folder \(folder.path)")
        }
        var status = stat()
        if lstat(output.path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            throw CompositionError(.output, "cannot write \(output.path): it exists and is not a regular file")
        }
        let random = UInt32.random(in: 0...UInt32.max)
        return folder.appendingPathComponent(
            ".\(output.lastPathComponent).composing-\(getpid())-\(String(random, radix: 16))")
    }

    /// Moves the finished temporary file over the output.
    static func rename(_ temporary: URL, to output: URL) throws(CompositionError) {
        guard Foundation.rename(temporary.path, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw CompositionError(.output, "cannot write \(output.path): \(reason)")
        }
    }

    /// Removes a temporary file that will not be finished (nothing when it was never created).
    static func remove(_ temporary: URL) {
        _ = unlink(temporary.path)
    }
}
