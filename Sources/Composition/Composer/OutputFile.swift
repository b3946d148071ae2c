import Foundation
import MediaCore

/// The composition's output, through MediaCore's atomic writer (a hidden temporary file beside the output, renamed
/// over it only once complete), with its failures worded as a composition's.
enum OutputFile {
    /// Clears the output's folder of temporary files that killed writers left (``AtomicOutput/removeAbandoned(in:)``),
    /// then creates the output's temporary file, after checking that the output is no folder, device, FIFO or socket,
    /// and none of `takes` (the same file under any name).
    static func create(for output: URL, takes: [URL]) throws(CompositionError) -> AtomicOutput {
        let path = FileSystemPath(output)
        AtomicOutput.removeAbandoned(in: path.directory)
        do throws(OutputFailure) {
            return try AtomicOutput(replacing: path, neverReplacing: takes.map(FileSystemPath.init))
        } catch {
            throw failure(error, output: output, takes: takes)
        }
    }

    /// Renames the finished temporary file over the output.
    static func commit(_ file: AtomicOutput, output: URL) throws(CompositionError) {
        do throws(OutputFailure) {
            try file.commit()
        } catch {
            throw failure(error, output: output, takes: [])
        }
    }

    /// "cannot write OUTPUT: REASON".
    private static func failure(_ failure: OutputFailure, output: URL, takes: [URL]) -> CompositionError {
        if case .isAnInput(let index) = failure.problem, takes.indices.contains(index) {
            return CompositionError(
                .output,
                "cannot write \(output.path): it is the file of take \(index) (\(takes[index].path)); an output never "
                    + "replaces a take")
        }
        return CompositionError(.output, "cannot write \(output.path): \(failure.detail)")
    }
}
