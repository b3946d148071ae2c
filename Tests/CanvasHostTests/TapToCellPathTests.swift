import CanvasHost
import CanvasKit
import Foundation
import Observation
import Synchronization
import Testing

/// A cell that keeps the call stack of its redraws while asked to.
@MainActor
private final class StackCell: HeadlessCell, CanvasScreenCell {
    static var capturing = false
    static var redraws: [[UInt]] = []

    func draw(_ display: CanvasDisplay?) {
        if Self.capturing { Self.redraws.append(CallPath.returnAddresses()) }
    }
    func draw(_ cover: CoverImage?) {}
    func setHostsPreview(_ hostsPreview: Bool) {}
}

/// One frame of a symbolized stack: its return address, its function (mangled) and its source file.
private struct Frame: Equatable {
    let address: UInt
    let function: String
    let file: String
}

/// Call stacks captured in this process, symbolized by `addr2line` from the test binary's debug information.
private enum CallPath {
    static func returnAddresses() -> [UInt] {
        Thread.callStackReturnAddresses.map { $0.uintValue }
    }

    /// The frames of `addresses` (innermost first) that are in the test binary and have a source file (not thunks the
    /// compiler made).
    static func symbolize(_ addresses: [UInt]) throws -> [Frame] {
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8).split(separator: "\n")
        let binary = try #require(Bundle.main.executablePath.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath() })
        // The binary's mappings: start, end and file offset; a return address is looked up one byte before it (the
        // call), at its offset in the file (what addr2line reads for a position-independent executable).
        var inBinary: [(address: UInt, offset: UInt)] = []
        for line in maps where line.hasSuffix(binary.path) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard range.count == 2, let fileOffset = UInt(fields[2], radix: 16) else { continue }
            for address in addresses where address > range[0] && address <= range[1] {
                inBinary.append((address, address - 1 - range[0] + fileOffset))
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/addr2line")
        process.arguments = ["-e", binary.path, "-f"] + inBinary.map { "0x" + String($0.offset, radix: 16) }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var frames: [Frame] = []
        for (index, entry) in inBinary.enumerated() where 2 * index + 1 < lines.count {
            let file = String(lines[2 * index + 1].split(separator: ":").first ?? "")
            guard file.hasSuffix(".swift") else { continue }
            frames.append(Frame(address: entry.address, function: String(lines[2 * index]), file: file))
        }
        return frames.sorted { addresses.firstIndex(of: $0.address)! < addresses.firstIndex(of: $1.address)! }
    }

    /// The layer a source file belongs to, for counting turn-backs: a module, or CanvasKit's folder, or the app (a
    /// test file: the cell).
    static func layer(of file: String) -> String {
        guard let range = file.range(of: "/Sources/") else { return "app" }
        let parts = file[range.upperBound...].split(separator: "/")
        return parts[0] == "CanvasKit" ? "CanvasKit/\(parts[1])" : String(parts[0])
    }

    /// The frames from the outermost `CanvasBoard.send` inward (outermost first).
    static func fromSend(_ frames: [Frame]) -> [Frame] {
        let outward = Array(frames.reversed())
        guard let start = outward.firstIndex(where: { $0.file.hasSuffix("Model/CanvasBoard.swift") }) else { return [] }
        return Array(outward[start...])
    }

    /// One line per frame: layer, file, function.
    static func describe(_ frames: [Frame]) -> String {
        var text = ""
        for frame in frames {
            let name = URL(fileURLWithPath: frame.file).lastPathComponent
            text += "\(layer(of: frame.file)) \(name) \(frame.function)\n"
        }
        return text
    }
}

#if DEBUG
    /// The path is read from a debug build's stacks: a release build inlines the frames it names (`CanvasBoard.send`
    /// among them), so its stacks do not show the path.
    private let stacksShowThePath = true
#else
    private let stacksShowThePath = false
#endif

@Suite(
    "Tap to cell: the files and turn-backs between CanvasBoard.send and the cell's redraw",
    .enabled(if: stacksShowThePath, "a release build inlines the frames the path is read from"))
@MainActor
struct TapToCellPathTests {
    @Test("a tap reaches the cell through at most 12 files of the package with at most one turn-back")
    func tapToCell() throws {
        let board = CanvasBoard(canvasCount: 3)
        let adapter = CanvasScreenAdapter(
            board: board, collectionView: HeadlessCollectionView(configuration: .init(viewportSize: 3)),
            cellType: StackCell.self)
        adapter.collectionView.screenDidAppear()
        let cell = try #require(adapter.visibleCells.first { $0.index == 1 }?.cell)
        let viewModel = try #require(adapter.viewModel(of: cell))
        // Where the view-model writes its display (Swift Observation's onChange runs inside that write).
        let atViewModel = Mutex<[UInt]>([])
        withObservationTracking {
            _ = viewModel.display
        } onChange: {
            atViewModel.withLock { $0 = CallPath.returnAddresses() }
        }
        StackCell.capturing = true
        board.send(.tap(1))
        StackCell.capturing = false
        let redraw = try #require(StackCell.redraws.first)
        #expect(viewModel.display?.picture == .livePreview)

        // Two stacks from `send`: into the view-model's write, and into the cell's redraw. Their common frames are the
        // drain of the board's transaction; the redraw's stack goes on from there (the drain delivering the display
        // change the view-model's write queued).
        let first = try CallPath.fromSend(CallPath.symbolize(atViewModel.withLock { $0 })).filter {
            $0.file.contains("/Sources/")
        }
        let second = try CallPath.fromSend(CallPath.symbolize(redraw))
        var shared = 0
        while shared < min(first.count, second.count) && first[shared].address == second[shared].address {
            shared += 1
        }
        var files: [String] = []
        for frame in first + second where frame.file.contains("/Sources/") && !files.contains(frame.file) {
            files.append(frame.file)
        }
        // A turn-back: control entering again a layer it left (the lock type is no layer: it runs its caller's code).
        var layers: [String] = []
        var turnBacks: [String] = []
        for frame in first + second[shared...] where CallPath.layer(of: frame.file) != "Locking" {
            let layer = CallPath.layer(of: frame.file)
            guard layer != layers.last else { continue }
            if layers.contains(layer) { turnBacks.append("\(layers.last!) -> \(layer) (\(frame.function))") }
            layers.append(layer)
        }
        print("tap to cell: \(files.count) files in Sources, turn-backs \(turnBacks)")
        print(
            "to the view-model's write:\n" + CallPath.describe(first) + "to the redraw:\n" + CallPath.describe(second))
        #expect(!first.isEmpty && !second.isEmpty, "both stacks start at CanvasBoard.send")
        #expect(files.count <= 12, "\(files)")
        #expect(turnBacks.count <= 1, "\(turnBacks)")
    }
}
