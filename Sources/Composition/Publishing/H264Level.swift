/// An H.264 level: the limits a decoder of that level is built for (ITU-T H.264 Table A-1), and the lowest level a
/// stream of a given size, frame rate and bit rate needs.
public struct H264Level: Sendable, Hashable, CustomStringConvertible {
    /// The level as the stream states it (`level_idc`): 10 times the level, 40 for 4.0, 42 for 4.2 (9 for 1b).
    public let idc: Int
    /// Macroblocks a second (MaxMBPS).
    public let macroblocksPerSecond: Int
    /// Macroblocks in a frame (MaxFS).
    public let frameMacroblocks: Int
    /// Macroblocks the decoded picture buffer holds (MaxDpbMbs).
    public let bufferedMacroblocks: Int
    /// The highest bit rate of a High-profile stream, in bits per second (MaxBR x 1,250).
    public let maximumBitRate: Int
    /// The largest coded picture buffer of a High-profile stream, in bits (MaxCPB x 1,250).
    public let maximumBufferSize: Int

    private init(_ idc: Int, _ mbps: Int, _ frame: Int, _ dpb: Int, _ bitRate: Int, _ buffer: Int) {
        self.idc = idc
        macroblocksPerSecond = mbps
        frameMacroblocks = frame
        bufferedMacroblocks = dpb
        // Table A-1 gives kbit/s and kbit for Baseline and Main; High's limits are 1.25 times as high (Table A-2).
        maximumBitRate = bitRate * 1250
        maximumBufferSize = buffer * 1250
    }

    /// The levels of Table A-1, lowest first (level 1b left out).
    public static let all: [H264Level] = [
        H264Level(10, 1485, 99, 396, 64, 175), H264Level(11, 3000, 396, 900, 192, 500),
        H264Level(12, 6000, 396, 2376, 384, 1000), H264Level(13, 11880, 396, 2376, 768, 2000),
        H264Level(20, 11880, 396, 2376, 2000, 2000), H264Level(21, 19800, 792, 4752, 4000, 4000),
        H264Level(22, 20250, 1620, 8100, 4000, 4000), H264Level(30, 40500, 1620, 8100, 10000, 10000),
        H264Level(31, 108_000, 3600, 18000, 14000, 14000), H264Level(32, 216_000, 5120, 20480, 20000, 20000),
        H264Level(40, 245_760, 8192, 32768, 20000, 25000), H264Level(41, 245_760, 8192, 32768, 50000, 62500),
        H264Level(42, 522_240, 8704, 34816, 50000, 62500), H264Level(50, 589_824, 22080, 110_400, 135_000, 135_000),
        H264Level(51, 983_040, 36864, 184_320, 240_000, 240_000),
        H264Level(52, 2_073_600, 36864, 184_320, 240_000, 240_000),
        H264Level(60, 4_177_920, 139_264, 696_320, 240_000, 240_000),
        H264Level(61, 8_355_840, 139_264, 696_320, 480_000, 480_000),
        H264Level(62, 16_711_680, 139_264, 696_320, 800_000, 800_000),
    ]

    /// The lowest level whose decoders take `size` pictures at `frameRate` with a VBV of `bitRate` bits per second
    /// and `bufferSize` bits: the frame's macroblocks within MaxFS (and each side within `sqrt(8 * MaxFS)`), its
    /// macroblocks a second within MaxMBPS, the rate and buffer within High's MaxBR and MaxCPB. Nil when none does.
    /// 1080x1920 at 30 frames a second is level 4.0, at 60 level 4.2.
    public static func lowest(for size: PixelSize, frameRate: FrameRate, bitRate: Int, bufferSize: Int) -> H264Level? {
        let columns = (size.width + 15) / 16
        let rows = (size.height + 15) / 16
        let frame = columns * rows
        return all.first { level in
            let side = Double(8 * level.frameMacroblocks).squareRoot()
            return frame <= level.frameMacroblocks && Double(columns) <= side && Double(rows) <= side
                && Double(frame) * frameRate.framesPerSecond <= Double(level.macroblocksPerSecond)
                && bitRate <= level.maximumBitRate && bufferSize <= level.maximumBufferSize
        }
    }

    /// `4.0`, `4.2`: the level as people write it.
    public var description: String { "\(idc / 10).\(idc % 10)" }
}
