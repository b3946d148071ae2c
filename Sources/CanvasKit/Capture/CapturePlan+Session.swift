import Foundation

extension CapturePlan {
    /// What a capture session already holds when the performer configures it.
    public struct SessionContents: Sendable, Hashable {
        /// The devices whose input is in the session.
        public var inputs: Set<CaptureDevice>
        /// Whether the movie file output is in the session.
        public var hasMovieOutput: Bool
        /// Whether the session is running.
        public var isRunning: Bool

        /// A session holding `inputs` and, when told so, the movie output, running or not.
        public init(inputs: Set<CaptureDevice> = [], hasMovieOutput: Bool = false, isRunning: Bool = false) {
            self.inputs = inputs
            self.hasMovieOutput = hasMovieOutput
            self.isRunning = isRunning
        }
    }

    /// The configuration steps of the plan still to carry out on a session holding `contents`, in order.
    ///
    /// An input or the movie output already in the session is not added again (the session refuses a second one,
    /// which would read as a device that is unavailable), and a running session is not started again; the access
    /// requests are left out, since they come before configuring. A second configuration of a configured session is
    /// therefore empty, and one that an earlier configuration left half done finishes it.
    public func configurationSteps(given contents: SessionContents) -> [Step] {
        steps.filter { step in
            switch step {
            case .requestAccess: false
            case .addInput(let device): !contents.inputs.contains(device)
            case .addMovieOutput: !contents.hasMovieOutput
            case .startRunning: !contents.isRunning
            }
        }
    }
}
