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

// MARK: CanvasKit
products.append(.library(name: "CanvasKit", targets: ["CanvasKit"]))
targets += [
    .target(
        name: "CanvasKit",
        dependencies: ["Observing"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "CanvasKitTests",
        dependencies: ["CanvasKit", "Observing"],
        swiftSettings: swiftSettings
    ),
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
    ),
]

let package = Package(
    name: "MultiCanvas",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)
