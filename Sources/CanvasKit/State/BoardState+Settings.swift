import Foundation

// The board's settings: its soundtrack, its microphone setting and its maximum take length. They change rarely (an
// event of their own, or the app before it hands the board over), so they are stored out of line: a copy of the
// board, which every pure transition makes, copies one reference for them instead of five words.

extension BoardState {
    /// The settings, as one value.
    struct Settings: Sendable, Hashable {
        var soundtrack: Soundtrack?
        var recordsSound = true
        var maximumTakeLength: Double?
    }

    /// A value stored out of line: an `indirect` case is kept in a box that copies share.
    indirect enum OutOfLine: Sendable, Hashable {
        case settings(Settings)
    }

    /// The settings; setting them stores a new box.
    var settings: Settings {
        get {
            switch storedSettings {
            case .settings(let settings): settings
            }
        }
        set { storedSettings = .settings(newValue) }
    }

    /// The board's soundtrack: it plays while a canvas records and is mixed under the takes. Set by
    /// ``CanvasEvent/setSoundtrack(_:)``.
    public internal(set) var soundtrack: Soundtrack? {
        get { settings.soundtrack }
        set { settings.soundtrack = newValue }
    }

    /// The board's microphone setting: whether takes record their own sound (the default) or the picture only. Set by
    /// ``CanvasEvent/setMicrophone(_:)``.
    public internal(set) var recordsSound: Bool {
        get { settings.recordsSound }
        set { settings.recordsSound = newValue }
    }

    /// The longest a take may be, in seconds (all its segments together), or nil for no limit. A recording that
    /// reaches it is stopped by the recorder (``RecordingSettings/maximumDuration``), and `resume` on a take that has
    /// reached it is rejected. Set it before handing the board to a ``CanvasBoard``.
    public var maximumTakeLength: Double? {
        get { settings.maximumTakeLength }
        set { settings.maximumTakeLength = newValue }
    }
}
