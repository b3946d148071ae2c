import Foundation

/// Names the cover files of many inputs written into one directory, with no two inputs sharing a
/// name.
///
/// A cover is named after its input without the input's extension (`clip.mov` → `clip.png`). When
/// that name is taken by an earlier input of the same batch (two `clip.mov` in different folders,
/// `clip.mp4` beside `clip.webm`, or the same file listed twice) the later one gets `-2`, `-3`, …
/// (`clip-2.png`). Names are compared without regard to case, so the rule holds on case-insensitive
/// file systems too. Existing files in the directory are not taken into account: a cover replaces
/// the file of its name (atomically, by the writer).
public struct CoverOutputNamer: Sendable {
    /// The directory the covers are written into.
    public let directory: URL
    /// The extension of every cover, without the dot (`png`, `jpg`).
    public let fileExtension: String
    private var taken: Set<String> = []

    /// A namer for covers written into `directory` with `fileExtension`.
    public init(directory: URL, fileExtension: String) {
        self.directory = directory
        self.fileExtension = fileExtension
    }

    /// The output file for `input`; each call reserves the name it returns.
    public mutating func outputURL(for input: URL) -> URL {
        var stem = input.deletingPathExtension().lastPathComponent
        if stem.isEmpty || stem == "/" { stem = "cover" }
        var candidate = stem
        var counter = 1
        while taken.contains("\(candidate).\(fileExtension)".lowercased()) {
            counter += 1
            candidate = "\(stem)-\(counter)"
        }
        let name = "\(candidate).\(fileExtension)"
        taken.insert(name.lowercased())
        return directory.appendingPathComponent(name)
    }
}
