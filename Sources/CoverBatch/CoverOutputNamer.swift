import Foundation
import MediaCore
import Thumbnails

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Names the cover files of many inputs written into one directory, with no two inputs sharing a
/// name and no cover replacing one of the inputs.
///
/// A cover is named after its input without the input's extension (`clip.mov` → `clip.png`). When
/// that name is taken by an earlier input of the same batch (two `clip.mov` in different folders,
/// `clip.mp4` beside `clip.webm`, or the same file listed twice), or is the name of an input in
/// the output directory itself (a `photo.png` given as input), the cover gets `-2`, `-3`, …
/// (`clip-2.png`). A name longer than the 255 bytes a file name may have loses the end of its
/// stem (whole characters, when it is UTF-8). Names are compared without regard to case, so the
/// rule holds on case-insensitive file systems too. Names are bytes: an input whose name is not
/// UTF-8 gets a cover with the same bytes in its name. Other existing files in the directory are
/// not taken into account: a cover replaces the file of its name (atomically, by the writer).
public struct CoverOutputNamer: Sendable {
    /// The directory the covers are written into.
    public let directory: FileSystemPath
    /// The extension of every cover, without the dot (`png`, `jpg`).
    public let fileExtension: String
    private var taken: Set<[UInt8]> = []
    /// Per stem, the counter of the name it was last given: every counter below it was taken then, and `taken` only
    /// grows, so the next name of that stem is looked for from there (from 1 each time, a library of n files of one
    /// name took n^2/2 look-ups: 4,000 took about 9 s before the first cover).
    private var lastCounter: [[UInt8]: Int] = [:]

    /// A namer for covers written into `directory` with `fileExtension` that never gives out the
    /// name of one of `inputs` lying in `directory` (symbolic links resolved).
    public init(directory: FileSystemPath, fileExtension: String, protecting inputs: [FileSystemPath] = []) {
        self.directory = directory
        self.fileExtension = fileExtension
        let folder = Self.resolved(directory)
        for input in inputs where Self.resolved(input.directory) == folder {
            taken.insert(Self.caseFolded(input.lastComponent))
            if let target = Self.realPath(input), target.directory == folder {
                taken.insert(Self.caseFolded(target.lastComponent))
            }
        }
    }

    /// The output file for `input`; each call reserves the name it returns.
    public mutating func outputPath(for input: FileSystemPath) -> FileSystemPath {
        var stem = input.stem
        if stem.isEmpty { stem = Array("cover".utf8) }
        var counter = lastCounter[stem] ?? 1
        var name = Self.name(stem, counter: counter, fileExtension: fileExtension)
        while taken.contains(Self.caseFolded(name)) {
            counter += 1
            name = Self.name(stem, counter: counter, fileExtension: fileExtension)
        }
        taken.insert(Self.caseFolded(name))
        lastCounter[stem] = counter
        return directory.appending(component: name)
    }

    /// `stem` + `suffix`, the stem shortened so that the name fits in the 255 bytes a file name
    /// may have (an input's name may already be that long): by whole characters when it is
    /// UTF-8, else by bytes.
    /// `stem.EXT` for counter 1, else `stem-COUNTER.EXT`, fitted to 255 bytes.
    private static func name(_ stem: [UInt8], counter: Int, fileExtension: String) -> [UInt8] {
        fitting(stem, suffix: counter == 1 ? ".\(fileExtension)" : "-\(counter).\(fileExtension)")
    }

    private static func fitting(_ stem: [UInt8], suffix: String) -> [UInt8] {
        let suffix = Array(suffix.utf8)
        guard stem.count + suffix.count > 255 else { return stem + suffix }
        if let text = String(validating: stem, as: UTF8.self) {
            var kept = Substring(text)
            while kept.utf8.count + suffix.count > 255, !kept.isEmpty { kept = kept.dropLast() }
            return Array(kept.utf8) + suffix
        }
        return Array(stem.prefix(max(0, 255 - suffix.count))) + suffix
    }

    /// The key two names collide under: lowercased (Unicode when the name is UTF-8, else ASCII).
    private static func caseFolded(_ name: [UInt8]) -> [UInt8] {
        if let text = String(validating: name, as: UTF8.self) { return Array(text.lowercased().utf8) }
        return name.map(FileSystemPath.asciiLowercased)
    }

    /// `path` with `.`, `..` and symbolic links resolved, or as given when it does not exist.
    private static func resolved(_ path: FileSystemPath) -> FileSystemPath {
        realPath(path) ?? path
    }

    private static func realPath(_ path: FileSystemPath) -> FileSystemPath? {
        path.withCString { name -> FileSystemPath? in
            guard let resolved = realpath(name, nil) else { return nil }
            defer { free(resolved) }
            return FileSystemPath(
                unchecked: Array(
                    UnsafeBufferPointer(
                        start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved)))
            )
        }
    }
}
