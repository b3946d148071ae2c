/// How a decoded picture is turned to show upright: one of the eight orientations a display
/// matrix can express (four turns, each mirrored or not), as the `ffmpeg` command's autorotate
/// applies them.
///
/// As a pixel mapping: output pixel (x, y) of the upright picture comes from stored pixel
/// (sx, sy), where (u, v) is (y, x) when ``transposes`` and (x, y) otherwise, then
/// `sx = flipsX ? width - 1 - u : u` and `sy = flipsY ? height - 1 - v : v`.
package struct Orientation: Sendable, Hashable {
    /// Whether rows become columns (a quarter turn, mirrored or not).
    package var transposes: Bool
    /// Whether the source is read right to left.
    package var flipsX: Bool
    /// Whether the source is read bottom to top.
    package var flipsY: Bool

    package static let upright = Orientation(transposes: false, flipsX: false, flipsY: false)

    /// Whether this is the identity (no pixel moves).
    package var isUpright: Bool { self == .upright }

    /// The clockwise turn, in degrees (0, 90, 180, 270), that follows an optional left-right
    /// mirror (``isMirrored``): every orientation is "mirror if asked, then turn".
    package var rotation: Int {
        switch (transposes, flipsX, flipsY) {
        case (false, false, false), (false, true, false): 0
        case (false, true, true), (false, false, true): 180
        case (true, false, true), (true, true, true): 90
        case (true, true, false), (true, false, false): 270
        }
    }

    /// Whether the picture is mirrored left to right before ``rotation`` is applied.
    package var isMirrored: Bool {
        switch (transposes, flipsX, flipsY) {
        case (false, true, false), (false, false, true), (true, true, true), (true, false, false): true
        default: false
        }
    }

    /// The orientation for a plain clockwise turn of `rotation` degrees (0, 90, 180, 270).
    package init(clockwise rotation: Int) {
        switch ((rotation % 360) + 360) % 360 {
        case 90: self.init(transposes: true, flipsX: false, flipsY: true)
        case 180: self.init(transposes: false, flipsX: true, flipsY: true)
        case 270: self.init(transposes: true, flipsX: true, flipsY: false)
        default: self = .upright
        }
    }

    package init(transposes: Bool, flipsX: Bool, flipsY: Bool) {
        self.transposes = transposes
        self.flipsX = flipsX
        self.flipsY = flipsY
    }

    /// The orientation the `ffmpeg` command's autorotate gives a stream with this display matrix
    /// (nine values, row-major, FFmpeg's layout), or ``upright`` without one.
    ///
    /// The same decision as `fftools/ffmpeg_filter.c`: the angle is `-round(av_display_rotation_get)`
    /// brought into [0, 360); at 90 a positive `matrix[3]` means a transpose (`transpose=cclock_flip`),
    /// else a clockwise turn; at 270 a negative `matrix[3]` means `transpose=clock_flip`, else a
    /// counterclockwise turn; at 180 a negative `matrix[0]` flips left-right and a negative
    /// `matrix[4]` top-bottom (both: the half turn); near 0 a negative `matrix[4]` flips
    /// top-bottom. Any other angle (the command rotates by it, filling the corners) is rounded to
    /// the nearest quarter turn.
    package init(displayMatrix matrix: [Int32]?, rotation counterclockwise: Double?) {
        guard let matrix, matrix.count >= 9, let counterclockwise, counterclockwise.isFinite else {
            self = .upright
            return
        }
        var theta = -counterclockwise.rounded()
        theta -= 360 * (theta / 360 + 0.9 / 360).rounded(.down)
        if abs(theta - 90) < 1 {
            self =
                matrix[3] > 0 ? Orientation(transposes: true, flipsX: false, flipsY: false) : Orientation(clockwise: 90)
        } else if abs(theta - 180) < 1 {
            self.init(transposes: false, flipsX: matrix[0] < 0, flipsY: matrix[4] < 0)
        } else if abs(theta - 270) < 1 {
            self =
                matrix[3] < 0 ? Orientation(transposes: true, flipsX: true, flipsY: true) : Orientation(clockwise: 270)
        } else if abs(theta) < 1 {
            self.init(transposes: false, flipsX: false, flipsY: matrix[4] < 0)
        } else {
            self.init(clockwise: Self.clockwiseQuarterTurns(fromCounterclockwise: counterclockwise))
        }
    }
}

extension Orientation {
    /// FFmpeg's counterclockwise display angle as clockwise degrees, rounded to 0, 90, 180, 270.
    package static func clockwiseQuarterTurns(fromCounterclockwise degrees: Double) -> Int {
        guard degrees.isFinite else { return 0 }
        let quarterTurns = Int((-degrees / 90).rounded())
        return ((quarterTurns % 4) + 4) % 4 * 90
    }
}
