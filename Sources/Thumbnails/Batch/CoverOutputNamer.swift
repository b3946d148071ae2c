import Foundation

/// Names the cover files of many inputs written into one directory, with no two inputs sharing a
/// name and no cover replacing one of the inputs.
///
/// A cover is named after its input without the input's extension (`clip.mov` → `clip.png`). When
/// that name is taken by an earlier input of the same batch (two `clip.mov` in different folders,
/// `clip.mp4` beside `clip.webm`, or the same file listed twice), or is the name of an input in
/// the output directory itself (a `photo.png` given as input), the cover gets `-2`, `-3`, …
/// (`clip-2.png`). A name longer than the 255 bytes a file name may have loses the end of its
/// stem. Names are compared without regard to case, so the rule holds on
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
        var counter = 1
        var name = Self.fitting(stem, suffix: ".\(fileExtension)")
        while taken.contains(name.lowercased()) {
            counter += 1
            name = Self.fitting(stem, suffix: "-\(counter).\(fileExtension)")
        }
        taken.insert(name.lowercased())
        return directory.appendingPathComponent(name)
    }

    /// `stem` + `suffix`, the stem shortened (by whole characters) so that the name fits in the
    /// 255 bytes a file name may have: an input's name may already be that long.
    private static func fitting(_ stem: String, suffix: String) -> String {
        var stem = Substring(stem)
        while stem.utf8.count + suffix.utf8.count > 255, !stem.isEmpty { stem = stem.dropLast() }
        return stem + suffix
    }

    /// The absolute path of `url` with `.`, `..` and symbolic links resolved.
    private static func resolvedPath(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path
    }
}
