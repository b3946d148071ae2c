import Foundation
import SeededRandom

/// The committed test videos (Fixtures/, made by Tools/make-fixtures.sh), found relative to
/// this source file so the tests run from any working directory.
package enum Fixtures {
    package static let folder = URL(filePath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appending(path: "Fixtures", directoryHint: .isDirectory)

    package static func url(_ name: String) -> URL {
        folder.appending(path: name, directoryHint: .notDirectory)
    }

    /// `original` damaged the way the damaged-input tests do it: cut to a random length first when `cutting`,
    /// then `overwrites` random bytes replaced by random values, all drawn from `random`.
    package static func damaged(_ original: Data, cutting: Bool, overwrites: Int, using random: inout SplitMix64)
        -> Data
    {
        var bytes = original
        if cutting {
            bytes = bytes.prefix(Int.random(in: 1..<bytes.count, using: &random))
        }
        for _ in 0..<overwrites {
            let index = Int.random(in: 0..<bytes.count, using: &random)
            bytes[index] = UInt8.random(in: 0...255, using: &random)
        }
        return bytes
    }
}
