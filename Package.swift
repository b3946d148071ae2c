// swift-tools-version: 6.1
// MultiCanvas: the view-model layer of a multi-canvas recording screen.
// Layout and contract: DESIGN.md section 1 (kept in the steering repo's shared/ folder).
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode (the package default below) and
/// `MemberImportVisibility`, so a file sees only the members of the modules it imports itself.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility")
]

var products: [Product] = []
var targets: [Target] = []

// MARK: Thumbnails
// The FFmpeg-backed cover service (DESIGN section 5). CFFmpeg is the system library it alone imports:
// `pkgConfig` finds the headers and library folder through libavformat.pc, and CFFmpeg's module map
// links all four libraries. The test suite reads the committed Fixtures/ (made by Tools/make-fixtures.sh).
products.append(.library(name: "Thumbnails", targets: ["Thumbnails"]))
targets += [
    .systemLibrary(
        name: "CFFmpeg",
        pkgConfig: "libavformat",
        providers: [
            .apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev", "pkg-config"]),
            .brew(["ffmpeg", "pkg-config"]),
        ]
    ),
    .target(name: "Thumbnails", dependencies: ["CFFmpeg"], swiftSettings: swiftSettings),
    .testTarget(name: "ThumbnailsTests", dependencies: ["Thumbnails"], swiftSettings: swiftSettings),
    // `media-info FILE...`: a development tool that prints what Thumbnails reads from media files.
    .executableTarget(
        name: "media-info", dependencies: ["Thumbnails"], path: "Tools/MediaInfo", swiftSettings: swiftSettings),
]

// MARK: CommandLineSupport
// What both executables share for printing: ordered one-line JSON, terminal detection, a progress line.
targets += [
    .target(name: "CommandLineSupport", swiftSettings: swiftSettings),
    .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport"], swiftSettings: swiftSettings),
]

// MARK: Observing
products.append(.library(name: "Observing", targets: ["Observing"]))
targets += [
    .target(name: "Observing", swiftSettings: swiftSettings),
    .testTarget(name: "ObservingTests", dependencies: ["Observing"], swiftSettings: swiftSettings),
    .executableTarget(
        name: "ObservingBenchmark",
        dependencies: ["Observing"],
        path: "Tools/ObservingBenchmark",
        swiftSettings: swiftSettings
    ),
]

let package = Package(
    name: "MultiCanvas",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
