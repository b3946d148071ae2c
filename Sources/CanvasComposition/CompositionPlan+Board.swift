import CanvasKit
import Composition
import Foundation
import Pixels

extension CompositionPlan {
    /// The plan of a board, in one call: the board's canvases laid out as the squarest grid that holds them all
    /// (`GridLayout(holding:)`: canvas i in tile i, column i % columns, row i / columns), each canvas that has a
    /// take composed in its tile from the take's start on the board's timeline (the start its first `stop` event
    /// carried), its segments back to back; canvases without a take leave their tile on the background. The board's
    /// soundtrack, if any, is the plan's music (the same file, start, gain and loop). Errors about a take name its
    /// canvas index.
    ///
    /// - Parameters:
    ///   - board: the board as a value (`CanvasBoard.state`).
    ///   - size: the output size (even sides).
    ///   - scaling: how every take fills its tile.
    ///   - frameRate: the output frame rate.
    ///   - grid: the grid, when not the squarest one (it must hold every canvas for a take to be composed).
    public init(
        board: BoardState, size: PixelSize, scaling: Scaling = .fit, frameRate: FrameRate = FrameRate(frames: 30),
        grid: GridLayout? = nil
    ) {
        let layout = grid ?? GridLayout(holding: board.count)
        self.init(
            size: size, frameRate: frameRate,
            takes: board.timelineTakes.filter { $0.index < layout.tileCount }.map { take in
                Take(
                    segments: take.segments.map(\.url), region: layout.region(ofTile: take.index), scaling: scaling,
                    start: take.start, canvasIndex: take.index)
            })
        soundtrack = board.soundtrack.map { music in
            Soundtrack(file: music.url, start: music.start, gain: music.gain, loops: music.loops)
        }
    }

    /// The plan of `board` as it is now (see ``init(board:size:scaling:frameRate:grid:)``).
    public init(
        board: CanvasBoard, size: PixelSize, scaling: Scaling = .fit, frameRate: FrameRate = FrameRate(frames: 30),
        grid: GridLayout? = nil
    ) {
        self.init(board: board.state, size: size, scaling: scaling, frameRate: frameRate, grid: grid)
    }
}
