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

// MARK: ThreadSanitizerSupport
// Announces the package's `Mutex` sections to ThreadSanitizer, which cannot see `Synchronization.Mutex` on Linux
// (Tools/sanitize.sh). Internal: `package` API only, shared by every module that locks.
targets += [
    .target(name: "ThreadSanitizerSupport", swiftSettings: swiftSettings),
    .testTarget(
        name: "ThreadSanitizerSupportTests", dependencies: ["ThreadSanitizerSupport"], swiftSettings: swiftSettings),
]

// MARK: SeededRandom
// SplitMix64, the one seeded generator every seeded thing in the package uses (`package` API, not a product).
targets += [.target(name: "SeededRandom", swiftSettings: swiftSettings)]

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
    // Thumbnails implements CanvasKit's `CoverProvider` (CanvasKit itself never imports FFmpeg).
    .target(
        name: "Thumbnails", dependencies: ["CFFmpeg", "CanvasKit", "ThreadSanitizerSupport", "CommandLineSupport"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "ThumbnailsTests",
        dependencies: ["Thumbnails", "CanvasKit", "ThreadSanitizerSupport", "SeededRandom", "CommandLineSupport"],
        swiftSettings: swiftSettings),
    // `media-info FILE...`: a development tool that prints what Thumbnails reads from media files.
    .executableTarget(
        name: "media-info", dependencies: ["Thumbnails"], path: "Tools/MediaInfo", swiftSettings: swiftSettings),
    // `swift run -c release ThumbnailBenchmark ...`, driven by Tools/bench-thumbnails.sh, which
    // generates the inputs into the git-ignored .bench/ and runs Tools/Floor/cover_floor.c beside it.
    .executableTarget(
        name: "ThumbnailBenchmark", dependencies: ["Thumbnails"], path: "Tools/ThumbnailBenchmark",
        swiftSettings: swiftSettings),
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
    // The thread-local slot of Observing's per-thread context (C: Swift has no thread-local variables).
    .target(name: "ObservingThreadLocal"),
    .target(
        name: "Observing", dependencies: ["ThreadSanitizerSupport", "ObservingThreadLocal"],
        swiftSettings: swiftSettings),
    .testTarget(name: "ObservingTests", dependencies: ["Observing", "SeededRandom"], swiftSettings: swiftSettings),
    .executableTarget(
        name: "ObservingBenchmark",
        dependencies: ["Observing"],
        path: "Tools/ObservingBenchmark",
        swiftSettings: swiftSettings
    ),
]

// MARK: CanvasKit
// The canvas state machine, its observable models and the event language (DESIGN section 2).
products.append(.library(name: "CanvasKit", targets: ["CanvasKit"]))
targets += [
    .target(
        name: "CanvasKit", dependencies: ["Observing", "ThreadSanitizerSupport", "SeededRandom"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "CanvasKitTests", dependencies: ["CanvasKit", "Observing", "ThreadSanitizerSupport", "SeededRandom"],
        swiftSettings: swiftSettings),
    .executableTarget(
        name: "CanvasBenchmark",
        dependencies: ["CanvasKit", "Observing"],
        path: "Tools/CanvasBenchmark",
        swiftSettings: swiftSettings
    ),
]

// MARK: Lifecycle
targets += [
    .executableTarget(
        name: "LifecycleBenchmark",
        dependencies: ["CanvasKit", "Observing"],
        path: "Tools/LifecycleBenchmark",
        swiftSettings: swiftSettings
    )
]

// MARK: canvas-thumb
// `canvas-thumb INPUT... [-o OUT | --output-dir DIR] ...`: covers from the command line (DESIGN section 6).
products.append(.executable(name: "canvas-thumb", targets: ["canvas-thumb"]))
targets += [
    .executableTarget(
        name: "canvas-thumb", dependencies: ["Thumbnails", "CommandLineSupport", "ThreadSanitizerSupport"],
        swiftSettings: swiftSettings),
    // Runs the built executables against Fixtures/ (depending on them makes `swift test` build them first).
    .testTarget(
        name: "CLITests", dependencies: ["canvas-thumb", "canvas-sim", "ThreadSanitizerSupport"],
        swiftSettings: swiftSettings),
]

// MARK: canvas-sim
// `canvas-sim [--cells N] (--script FILE | --events "..." | --interactive) ...`: steps a board through events and
// prints every step (DESIGN section 6). The logic is CanvasKit's `BoardSimulation`; covers come from Thumbnails.
products.append(.executable(name: "canvas-sim", targets: ["canvas-sim"]))
targets += [
    .executableTarget(
        name: "canvas-sim", dependencies: ["CanvasKit", "Thumbnails", "CommandLineSupport", "ThreadSanitizerSupport"],
        swiftSettings: swiftSettings)
]

// MARK: Reliability
// Tools/mutate-canvas-thumb.sh and Tools/fuzz-sim.sh make their seeded inputs with `fuzz-inputs`; Tools/soak.sh runs
// `Soak` in release (a board driven by random events with real covers, memory sampled). See Docs/Reliability.md.
targets += [
    .executableTarget(
        name: "fuzz-inputs", dependencies: ["SeededRandom"], path: "Tools/FuzzInputs", swiftSettings: swiftSettings),
    .executableTarget(
        name: "Soak", dependencies: ["CanvasKit", "Thumbnails", "Observing", "SeededRandom"], path: "Tools/Soak",
        swiftSettings: swiftSettings),
]

// MARK: Fuzz
// libFuzzer harnesses (Tools/Fuzz), declared only when Tools/fuzz-covers.sh or Tools/fuzz-sim.sh builds them with
// MULTICANVAS_FUZZ=1 and `-sanitize=fuzzer,address` (Tools/fuzz-common.sh): their entry point is
// `LLVMFuzzerTestOneInput` and `main` is libFuzzer's, so they cannot link in an ordinary build.
if Context.environment["MULTICANVAS_FUZZ"] != nil {
    let fuzzerSettings = swiftSettings + [.unsafeFlags(["-parse-as-library"])]
    targets += [
        .executableTarget(
            name: "cover-fuzzer", dependencies: ["Thumbnails"], path: "Tools/Fuzz/CoverFuzzer",
            swiftSettings: fuzzerSettings),
        .executableTarget(
            name: "script-fuzzer", dependencies: ["CanvasKit", "Observing"], path: "Tools/Fuzz/ScriptFuzzer",
            swiftSettings: fuzzerSettings),
    ]
}

let package = Package(
    name: "MultiCanvas",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
