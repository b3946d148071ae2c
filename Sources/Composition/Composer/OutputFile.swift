import Foundation
import MediaCore

/// The output written atomically: a hidden temporary file beside it, renamed over it only once complete.
enum OutputFile {
    /// A fresh temporary path in the output's folder (`.NAME.composing-PID-RANDOM`), after checking that the folder
    /// exists, the output is not a folder, device, FIFO or socket, and it is none of `inputs` (the same file under
    /// any name: compared by device and inode).
    static func temporaryPath(for output: URL, inputs: [URL]) throws(CompositionError) -> URL {
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
        if let existing = FileIdentity(path: output.path),
            let index = inputs.firstIndex(where: { input in
                FileIdentity(path: input.path).map { ($0.device, $0.inode) == (existing.device, existing.inode) }
                    ?? false
            })
        {
            throw CompositionError(
                .output,
                "cannot write \(output.path): it is the file of take \(index) (\(inputs[index].path)); an output never "
                    + "replaces a take")
        }
        removeStale(of: output)
        let random = UInt32.random(in: 0...UInt32.max)
        return folder.appendingPathComponent(
            "\(prefix(of: output))\(getpid())-\(String(random, radix: 16))")
    }

    /// What the names of `output`'s temporary files start with; the writing process's id and a random part follow.
    static func prefix(of output: URL) -> String { ".\(output.lastPathComponent).composing-" }

    /// Removes the temporary files of `output` left by compositions whose process no longer runs (killed before it
    /// could clean up): those named with the id of a process that does not exist. A temporary file of a running
    /// composition, of this process or another, is left alone.
    static func removeStale(of output: URL) {
        let folder = output.deletingLastPathComponent()
        let prefix = prefix(of: output)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            // `kill(pid, 0)` sends nothing: it fails with ESRCH exactly when no such process exists.
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            var status = stat()
            let path = folder.appendingPathComponent(name).path
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            _ = unlink(path)
        }
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
