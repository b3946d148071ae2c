import Foundation

/// Names the cover files of many inputs written into one directory, with no two inputs sharing a
/// name and no cover replacing one of the inputs.
///
/// A cover is named after its input without the input's extension (`clip.mov` → `clip.png`). When
/// that name is taken by an earlier input of the same batch (two `clip.mov` in different folders,
/// `clip.mp4` beside `clip.webm`, or the same file listed twice), or is the name of an input in
/// the output directory itself (a `photo.png` given as input), the cover gets `-2`, `-3`, …
/// (`clip-2.png`). Names are compared without regard to case, so the rule holds on
/// case-insensitive file systems too. Other existing files in the directory are not taken into
/// account: a cover replaces the file of its name (atomically, by the writer).
public struct CoverOutputNamer: Sendable {
    /// The directory the covers are written into.
    public let directory: URL
    /// The extension of every cover, without the dot (`png`, `jpg`).
    public let fileExtension: String
    private var taken: Set<String> = []

    /// A namer for covers written into `directory` with `fileExtension` that never gives out the
    /// name of one of `inputs` lying in `directory` (symbolic links resolved).
    public init(directory: URL, fileExtension: String, protecting inputs: [URL] = []) {
        self.directory = directory
        self.fileExtension = fileExtension
        let folder = Self.resolvedPath(directory)
        for input in inputs where Self.resolvedPath(input.deletingLastPathComponent()) == folder {
            taken.insert(input.lastPathComponent.lowercased())
            let target = input.resolvingSymlinksInPath()
            if Self.resolvedPath(target.deletingLastPathComponent()) == folder {
                taken.insert(target.lastPathComponent.lowercased())
            }
        }
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

    /// The absolute path of `url` with `.`, `..` and symbolic links resolved.
    private static func resolvedPath(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }
}
