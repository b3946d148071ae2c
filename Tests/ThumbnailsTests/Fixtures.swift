import Foundation

/// The committed test videos (Fixtures/, made by Tools/make-fixtures.sh), found relative to
/// this source file so the tests run from any working directory.
enum Fixtures {
    static let folder = URL(filePath: #filePath)
        .deletingLastPathComponent()  // ThumbnailsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appending(path: "Fixtures", directoryHint: .isDirectory)

    static func url(_ name: String) -> URL {
        folder.appending(path: name, directoryHint: .notDirectory)
    }
}
