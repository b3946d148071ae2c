import Foundation

/// The folder a draft's takes are journaled relative to (``DraftOptions/takeRoot``; by default the draft's own
/// folder). A file URL inside it is written as its path below the folder, so a draft moved with its takes (an app's
/// container moved by the system, a folder copied to another disk) finds them where it is now; any other URL is
/// written whole. A URL with a base keeps its relative part, and its base follows the same rule.
struct DraftRoot: Sendable, Hashable {
    /// The folder's path with a trailing slash: what the path of a file inside it starts with.
    let prefix: String

    /// The root at `folder` (a file URL; `.` and `..` are resolved, links are not).
    init(folder: URL) {
        let path = folder.standardizedFileURL.path
        prefix = path.hasSuffix("/") ? path : path + "/"
    }

    /// The root of the draft at `path` when the app gives none: the draft's folder.
    init(draftAt path: String) {
        self.init(folder: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    /// The path of `url` below the folder (with a trailing `/` for a folder, empty for the root itself), or nil when
    /// `url` is not a file URL without a base inside the folder (then it is written whole).
    func relativePath(of url: URL) -> String? {
        guard url.baseURL == nil, url.isFileURL else { return nil }
        var path = url.standardizedFileURL.path
        if url.hasDirectoryPath, !path.hasSuffix("/") { path += "/" }
        guard path.hasPrefix(prefix) else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// The file (or, with a trailing `/` or empty, the folder) at `relativePath` below the root; nil when the path is
    /// not one ``relativePath(of:)`` gives (absolute, or climbing out of the folder).
    func url(relativePath: String) -> URL? {
        guard !relativePath.hasPrefix("/"), !relativePath.split(separator: "/").contains("..") else { return nil }
        let isDirectory = relativePath.isEmpty || relativePath.hasSuffix("/")
        return URL(fileURLWithPath: prefix + relativePath, isDirectory: isDirectory)
    }
}
