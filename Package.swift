// swift-tools-version: 6.2
// MultiCanvas: the view-model layer of a multi-canvas recording screen.
// The module graph and what each module may import: Docs/Architecture.md.
import Foundation
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode (the package default below) and
/// `MemberImportVisibility`, so a file sees only the members of the modules it imports itself.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility")
]

var products: [Product] = []
var targets: [Target] = []

// MARK: Locking
// `LockedValue`, the package's one lock type: a `Mutex` whose sections are announced to ThreadSanitizer, which cannot
// see `Synchronization.Mutex` on Linux (Tools/sanitize.sh). No product: shared by every module that locks, never
// re-exported. `LockedValue` itself is `public` only so that it inlines into generic callers (see LockedValue.swift).
targets += [
    // C: ThreadSanitizer's entry points, looked up once at load time into two globals (one load per check).
    .target(name: "LockingSanitizer"),
    .target(name: "Locking", dependencies: ["LockingSanitizer"], swiftSettings: swiftSettings),
    .testTarget(name: "LockingTests", dependencies: ["Locking"], swiftSettings: swiftSettings),
]

// MARK: SeededRandom
// SplitMix64, the one seeded generator every seeded thing in the package uses (`package` API, not a product).
targets += [.target(name: "SeededRandom", swiftSettings: swiftSettings)]

// MARK: OrderedJSON
// `JSONLine`: one JSON object on one line, keys in the order added (what `--json` output needs). Below CoverBatch (its
// batch reporter) and CommandLineSupport (canvas-sim's lines), so both print JSON with one escaper. Depends on nothing.
targets += [.target(name: "OrderedJSON", swiftSettings: swiftSettings)]

// MARK: Pixels
// The pixel value types both sides of a cover request use (`PixelSize`, `RGBColor`): below CanvasKit and Thumbnails,
// which re-export it, so each concept has one type. Depends on nothing.
targets += [.target(name: "Pixels", swiftSettings: swiftSettings)]

// MARK: Test support
// What several test suites share (never linked by a product): `TestSupport` (a lifetime tracker, the stress scale,
// temporary folders, the committed fixtures) and `CanvasTestSupport` (board builders, seeded event sequences, a fake
// cover provider).
targets += [
    .target(
        name: "TestSupport", dependencies: ["Locking", "SeededRandom"], path: "Tests/TestSupport",
        swiftSettings: swiftSettings),
    .target(
        name: "CanvasTestSupport", dependencies: ["CanvasKit", "Locking", "SeededRandom"],
        path: "Tests/CanvasTestSupport",
        swiftSettings: swiftSettings),
]

// MARK: MediaCore
// The FFmpeg layer that covers and composition share (Docs/Architecture.md): the owners of FFmpeg's C objects (format
// context, decoder, frame, packet, scaler, custom I/O), error mapping (`FFmpegError`), FFmpeg's log routed into errors,
// the guarded opening of an input, and the picture rules (orientation from the display matrix, aspect ratio, HDR to SDR
// tone mapping, deinterlacing, conversion to an upright RGB picture). The only code that imports CFFmpeg, the system
// library `pkgConfig` finds through libavformat.pc (its module map links all four libraries). No product: its API is
// `package`, except the value types `FileSystemPath`, `Rational` and `DynamicRange`, which Thumbnails re-exports.
// Its test hook (a lifetime tracker of the FFmpeg owners) is compiled only with THUMBNAILS_TEST_HOOKS, like
// Thumbnails' own: in debug builds, and in the release build of the tests (Tools/test.sh passes
// -Xswiftc -DTHUMBNAILS_TEST_HOOKS), so a release build of the libraries carries none of them.
let testHookSettings = swiftSettings + [.define("THUMBNAILS_TEST_HOOKS", .when(configuration: .debug))]
targets += [
    .systemLibrary(
        name: "CFFmpeg",
        pkgConfig: "libavformat",
        providers: [
            .apt([
                "libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev",
                "pkg-config",
            ]),
            .brew(["ffmpeg", "pkg-config"]),
        ]
    ),
    .target(name: "MediaCore", dependencies: ["CFFmpeg", "Pixels", "Locking"], swiftSettings: testHookSettings),
]

// MARK: Thumbnails
// The FFmpeg-backed cover service (Docs/Thumbnails.md), over MediaCore. The test suite reads the committed Fixtures/
// (made by Tools/make-fixtures.sh). Thumbnails depends on nothing above it: CanvasKit's cover protocol is implemented
// by CanvasCovers, and the batch machinery of canvas-thumb (worker processes, JSON lines) is CoverBatch's.
// Its test hooks (an observer of every cancellation check, a service's decode count) are compiled only with
// THUMBNAILS_TEST_HOOKS, as MediaCore's are. THUMBNAILS_BENCHMARK_HOOKS (Tools/bench-thumbnails.sh) adds the forced
// stream probe the benchmark measures.
products.append(.library(name: "Thumbnails", targets: ["Thumbnails"]))
targets += [
    .target(
        name: "Thumbnails", dependencies: ["MediaCore", "Pixels", "Locking"],
        swiftSettings: testHookSettings),
    .testTarget(
        name: "ThumbnailsTests",
        dependencies: ["Thumbnails", "MediaCore", "CoverBatch", "Locking", "SeededRandom", "TestSupport"],
        swiftSettings: swiftSettings),
    // `media-info FILE...`: a development tool that prints what Thumbnails reads from media files.
    .executableTarget(
        name: "media-info", dependencies: ["Thumbnails"], path: "Tools/MediaInfo", swiftSettings: swiftSettings),
    // `swift run -c release ThumbnailBenchmark ...`, driven by Tools/bench-thumbnails.sh, which
    // generates the inputs into the git-ignored .bench/ and runs Tools/Floor/cover_floor.c beside it.
    .executableTarget(
        name: "ThumbnailBenchmark", dependencies: ["Thumbnails", "CoverBatch"], path: "Tools/ThumbnailBenchmark",
        swiftSettings: swiftSettings),
]

// MARK: CoverBatch
// canvas-thumb's batch machinery (Docs/Covers-at-scale.md): the input walk, output naming, worker processes (forked or
// spawned) with their wire protocol and time limit, the JSON-lines reporter. Command-line machinery, not in a library
// an app links: no product, used by canvas-thumb and the benchmarks only.
targets += [
    .target(
        name: "CoverBatch", dependencies: ["Thumbnails", "MediaCore", "Locking", "OrderedJSON"],
        swiftSettings: testHookSettings),
    .testTarget(
        name: "CoverBatchTests",
        dependencies: ["CoverBatch", "Thumbnails", "MediaCore", "Locking", "SeededRandom", "TestSupport"],
        swiftSettings: swiftSettings),
]

// MARK: Composition
// The board's takes composed into one video (Docs/Composition.md): the plan value, grid layouts, the audio rule, and
// the composer over the FFmpeg layer. Knows CanvasKit only through the plan value (CanvasComposition makes one from a
// board).
products.append(.library(name: "Composition", targets: ["Composition"]))
targets += [
    .target(name: "Composition", dependencies: ["MediaCore", "Pixels", "Locking"], swiftSettings: swiftSettings),
    .testTarget(
        name: "CompositionTests",
        dependencies: [
            "Composition", "CanvasComposition", "CanvasKit", "MediaCore", "Pixels", "SeededRandom", "TestSupport",
        ],
        swiftSettings: swiftSettings),
]

// MARK: canvas-compose
// `canvas-compose TAKE... -o OUT.mp4 ...`: takes composed into one video from the command line (Docs/Composition.md).
products.append(.executable(name: "canvas-compose", targets: ["canvas-compose"]))
targets += [
    .executableTarget(
        name: "canvas-compose",
        dependencies: ["Composition", "CommandLineSupport", "Locking", "OrderedJSON", "Pixels"],
        swiftSettings: swiftSettings)
]

// MARK: CanvasComposition
// The one place CanvasKit and Composition meet: a composition plan made from a board.
products.append(.library(name: "CanvasComposition", targets: ["CanvasComposition"]))
targets += [
    .target(name: "CanvasComposition", dependencies: ["CanvasKit", "Composition"], swiftSettings: swiftSettings)
]

// MARK: CommandLineSupport
// What both executables share for printing: terminal detection, a progress line, and the last
// line a fatal signal prints (CLastLine: the signal handler, in C because it may only call async-signal-safe
// functions).
targets += [
    .target(name: "CLastLine"),
    .target(name: "CommandLineSupport", dependencies: ["CLastLine", "MediaCore"], swiftSettings: swiftSettings),
    .testTarget(
        name: "CommandLineSupportTests", dependencies: ["CommandLineSupport", "OrderedJSON"],
        swiftSettings: swiftSettings),
    // `signal-probe [ROUNDS]`: a termination signal sent the moment `TerminationSignals` is made is handled (CLITests).
    .executableTarget(
        name: "signal-probe", dependencies: ["CommandLineSupport"], path: "Tools/SignalProbe",
        swiftSettings: swiftSettings),
]

// MARK: Observing
products.append(.library(name: "Observing", targets: ["Observing"]))
targets += [
    .target(name: "Observing", dependencies: ["Locking"], swiftSettings: swiftSettings),
    .testTarget(
        name: "ObservingTests", dependencies: ["Observing", "SeededRandom", "TestSupport"], swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "ObservingBenchmark",
        dependencies: ["Observing"],
        path: "Tools/ObservingBenchmark",
        swiftSettings: swiftSettings
    ),
]

// MARK: CanvasKit
// What an app links for its recording screen (Docs/CanvasKit.md, Docs/Lifecycle.md): the board state machine,
// `CanvasModel` / `CanvasBoard`, display derivation, cell view-models, the display-lifecycle binder, the screen adapter
// over a collection-view protocol, the cover-provider protocol. No FFmpeg, no host, no simulation.
products.append(.library(name: "CanvasKit", targets: ["CanvasKit"]))
targets += [
    .target(name: "CanvasKit", dependencies: ["Observing", "Pixels", "Locking"], swiftSettings: swiftSettings),
    .testTarget(
        name: "CanvasKitTests",
        dependencies: ["CanvasKit", "Observing", "Locking", "SeededRandom", "TestSupport", "CanvasTestSupport"],
        swiftSettings: swiftSettings),
    // `swift run -c release DraftBenchmark`: a draft's cost against the same board in memory (Docs/Drafts.md).
    // The event scripts both board benchmarks replay.
    .target(
        name: "BenchmarkScripts", dependencies: ["CanvasKit"], path: "Tools/BenchmarkScripts",
        swiftSettings: swiftSettings),
    .executableTarget(
        name: "DraftBenchmark",
        dependencies: ["BenchmarkScripts", "CanvasKit", "Observing", "Locking"],
        path: "Tools/DraftBenchmark",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "CanvasBenchmark",
        dependencies: ["BenchmarkScripts", "CanvasKit", "Observing", "Locking"],
        path: "Tools/CanvasBenchmark",
        swiftSettings: swiftSettings
    ),
]

// MARK: CanvasApple
// The Apple layer (Docs/Apps.md): thin UIKit and AVFoundation shells over CanvasKit's decisions (the collection view
// conformance, a cell base class, the capture performer, synced playback, an AVAssetImageGenerator cover provider,
// drafts on the scene lifecycle). Its sources compile where UIKit and AVFoundation exist (`#if canImport(UIKit) &&
// canImport(AVFoundation)`), so elsewhere the module is empty; on Linux Tools/check-apple.sh type-checks them against
// Tests/AppleSignatures. It links CanvasKit only: no FFmpeg.
products.append(.library(name: "CanvasApple", targets: ["CanvasApple"]))
targets += [
    .target(name: "CanvasApple", dependencies: ["CanvasKit", "Observing", "Locking"], swiftSettings: swiftSettings)
]

// MARK: CanvasHost
// The headless collection view (UIKit's cell lifecycle, batch updates and their errors) and the headless canvas
// screen and cell over it: for the package's tests, the simulation, and apps' own tests of their cells.
products.append(.library(name: "CanvasHost", targets: ["CanvasHost"]))
targets += [
    .target(
        name: "CanvasHost", dependencies: ["CanvasKit", "Observing", "Locking", "SeededRandom"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "CanvasHostTests",
        dependencies: [
            "CanvasHost", "CanvasKit", "Observing", "Locking", "SeededRandom", "TestSupport", "CanvasTestSupport",
        ],
        swiftSettings: swiftSettings),
    .executableTarget(
        name: "LifecycleBenchmark",
        dependencies: ["CanvasHost", "CanvasKit", "Observing", "Locking"],
        path: "Tools/LifecycleBenchmark",
        swiftSettings: swiftSettings
    ),
]

// MARK: CanvasSimulation
// `canvas-sim`'s engine (Docs/canvas-sim.md): the event language, a board stepped on the headless screen, board
// pictures, the transition-table export.
products.append(.library(name: "CanvasSimulation", targets: ["CanvasSimulation"]))
targets += [
    .target(
        name: "CanvasSimulation", dependencies: ["CanvasKit", "CanvasHost", "Observing", "Locking"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "CanvasSimulationTests",
        dependencies: ["CanvasSimulation", "CanvasHost", "CanvasKit", "Locking", "SeededRandom", "CanvasTestSupport"],
        swiftSettings: swiftSettings),
]

// MARK: CanvasCovers
// The one place CanvasKit and Thumbnails meet: `CoverService` as CanvasKit's `CoverProvider`.
products.append(.library(name: "CanvasCovers", targets: ["CanvasCovers"]))
targets += [
    .target(name: "CanvasCovers", dependencies: ["CanvasKit", "Thumbnails"], swiftSettings: swiftSettings),
    .testTarget(
        name: "CanvasCoversTests", dependencies: ["CanvasCovers", "CanvasKit", "Thumbnails", "Locking", "TestSupport"],
        swiftSettings: swiftSettings),
]

// MARK: canvas-thumb
// `canvas-thumb INPUT... [-o OUT | --output-dir DIR] ...`: covers from the command line (Docs/canvas-thumb.md).
products.append(.executable(name: "canvas-thumb", targets: ["canvas-thumb"]))
targets += [
    .executableTarget(
        name: "canvas-thumb", dependencies: ["Thumbnails", "CoverBatch", "CommandLineSupport", "Locking"],
        swiftSettings: swiftSettings),
    // Runs the built executables against Fixtures/ (depending on them makes `swift test` build them first).
    .testTarget(
        name: "CLITests",
        dependencies: [
            "canvas-thumb", "canvas-sim", "canvas-compose", "recording-screen-example", "signal-probe",
            "CommandLineSupport", "Locking", "TestSupport",
        ],
        swiftSettings: swiftSettings),
]

// MARK: canvas-sim
// `canvas-sim [--cells N] (--script FILE | --events "..." | --interactive) ...`: steps a board through events and
// prints every step (Docs/canvas-sim.md). The logic is CanvasSimulation's `BoardSimulation`; covers come from
// Thumbnails through CanvasCovers.
products.append(.executable(name: "canvas-sim", targets: ["canvas-sim"]))
targets += [
    .executableTarget(
        name: "canvas-sim",
        dependencies: [
            "CanvasSimulation", "CanvasHost", "CanvasKit", "CanvasCovers", "Thumbnails", "CommandLineSupport",
            "OrderedJSON", "Locking", "Composition", "CanvasComposition",
        ],
        swiftSettings: swiftSettings)
]

// MARK: Reliability
// Tools/mutate-canvas-thumb.sh and Tools/fuzz-sim.sh make their seeded inputs with `fuzz-inputs`; Tools/soak.sh runs
// `Soak` in release (a board driven by random events with real covers, memory sampled). See Docs/Reliability.md.
targets += [
    .executableTarget(
        name: "fuzz-inputs", dependencies: ["SeededRandom"], path: "Tools/FuzzInputs", swiftSettings: swiftSettings),
    .executableTarget(
        name: "Soak",
        dependencies: [
            "CanvasSimulation", "CanvasHost", "CanvasKit", "CanvasCovers", "Thumbnails", "Observing", "SeededRandom",
        ],
        path: "Tools/Soak",
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
            name: "script-fuzzer", dependencies: ["CanvasSimulation", "CanvasHost", "CanvasKit", "Observing"],
            path: "Tools/Fuzz/ScriptFuzzer",
            swiftSettings: fuzzerSettings),
    ]
}

// MARK: Examples
// A recording screen wired exactly as an app wires it (board, screen adapter, cells that draw, covers
// through CanvasCovers, an effects performer), on the headless host; Docs/Apps.md shows the UIKit version beside it.
targets += [
    .executableTarget(
        name: "recording-screen-example",
        dependencies: ["CanvasKit", "CanvasHost", "CanvasCovers", "Thumbnails", "Observing"],
        path: "Examples/RecordingScreen", swiftSettings: swiftSettings)
]

let package = Package(
    name: "MultiCanvas",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)

// MARK: Apple signatures
// Tests/AppleSignatures declares, under Apple's module names, the UIKit, SwiftUI and AVFoundation signatures that the
// Apple layer and the `// Apple platforms only` blocks of the docs use (a check of our code against Apple's
// declarations, not a UIKit; see its README). Declared only while Tools/check-docs.sh or Tools/check-apple.sh builds,
// so no ordinary build sees modules named like Apple's; then CanvasApple is compiled against them (its sources are
// empty otherwise on Linux), and Tools/check-apple.sh adds `CanvasAppleCheck`: a copy of CanvasApple's sources with
// the generated checks of Apple's optional delegate methods (.apple-check/), depending on no FFmpeg-backed library.
let appleSignatures: [(name: String, dependencies: [String])] = [
    ("CoreGraphics", []), ("CoreMedia", []), ("QuartzCore", ["CoreGraphics"]),
    ("UIKit", ["CoreGraphics", "QuartzCore"]), ("AVFoundation", ["CoreGraphics", "CoreMedia", "QuartzCore"]),
    ("SwiftUI", ["CoreGraphics"]),
]
let checksApple = Context.environment["MULTICANVAS_APPLE_CHECK"] != nil
if Context.environment["MULTICANVAS_DOC_SNIPPETS"] != nil || checksApple {
    for module in appleSignatures {
        // AVFoundation's classes come from Objective-C headers with no Sendable annotation: Swift 6 treats them as
        // not Sendable, and `@preconcurrency import AVFoundation` relaxes that. A module in Swift 5 mode is what
        // `@preconcurrency` treats the same way.
        let mode: [SwiftSetting] = module.name == "AVFoundation" ? [.swiftLanguageMode(.v5)] : []
        package.targets.append(
            .target(
                name: module.name, dependencies: module.dependencies.map { Target.Dependency.target(name: $0) },
                path: "Tests/AppleSignatures/\(module.name)", swiftSettings: swiftSettings + mode))
    }
    let appleModules = appleSignatures.map { Target.Dependency.target(name: $0.name) }
    for target in package.targets where target.name == "CanvasApple" {
        target.dependencies += appleModules
    }
    if checksApple {
        package.targets.append(
            .target(
                name: "CanvasAppleCheck", dependencies: ["CanvasKit", "Observing", "Locking"] + appleModules,
                path: ".apple-check/CanvasAppleCheck", swiftSettings: swiftSettings))
    }
}

// MARK: Documentation snippets
// Tools/check-docs.sh extracts every Swift block of README.md and Docs/ into .doc-snippets/NAME/main.swift and builds
// them with MULTICANVAS_DOC_SNIPPETS set: one executable per block, depending on every library of the package.
if Context.environment["MULTICANVAS_DOC_SNIPPETS"] != nil {
    // Every library product is named after its one target.
    let libraries = products.filter { $0 is Product.Library }.map(\.name)
    let folder = Context.packageDirectory + "/.doc-snippets"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    for name in names.sorted() where name.hasPrefix("doc-") {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: libraries.map { Target.Dependency.target(name: $0) },
                path: ".doc-snippets/\(name)",
                swiftSettings: swiftSettings))
    }
    // The Apple blocks link what an iOS screen links: every library but the FFmpeg-backed ones (an iOS app has FFmpeg
    // only if it ships its own build).
    let ffmpegBacked: Set = ["Thumbnails", "CanvasCovers", "Composition", "CanvasComposition"]
    for name in names.sorted() where name.hasPrefix("apple-") {
        let dependencies = libraries.filter { !ffmpegBacked.contains($0) } + appleSignatures.map(\.name)
        package.targets.append(
            .target(
                name: name, dependencies: dependencies.map { Target.Dependency.target(name: $0) },
                path: ".doc-snippets/\(name)", swiftSettings: swiftSettings))
    }
}
