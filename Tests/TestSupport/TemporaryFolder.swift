import Foundation

/// A fresh folder under the system's temporary directory, removed when the value is released.
package final class TemporaryFolder {
    /// The folder.
    package let url: URL

    /// Creates the folder, named `prefix-UUID`.
    ///
    /// - Throws: the file system's error when the folder cannot be created.
    package init(prefix: String = "MultiCanvasTests") throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "\(prefix)-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
