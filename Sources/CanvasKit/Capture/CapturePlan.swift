/// Whether the app may use a capture device, as the system reports it (`AVAuthorizationStatus` on Apple platforms).
public enum CaptureAuthorization: Sendable, Hashable, CaseIterable {
    /// The user has not been asked yet.
    case notDetermined
    /// The device's owner does not allow it (parental controls, a managed device); the user cannot change it.
    case restricted
    /// The user said no.
    case denied
    /// The user said yes.
    case authorized
}

/// A device a recording screen captures from.
public enum CaptureDevice: Sendable, Hashable, CaseIterable {
    /// The camera: the picture, and the live preview.
    case camera
    /// The microphone: the take's sound.
    case microphone

    /// Whether a recording needs the device: a missing or refused camera input means nothing can be recorded
    /// (`RecorderProblem.deviceUnavailable`), a missing or refused microphone input means takes without sound.
    public var isRequired: Bool { self == .camera }
}

/// What a capture performer does to get a session that records, decided from the authorizations and the app's sound
/// setting: the Apple layer's capture performer carries the steps out in order, and plans again after asking access.
///
/// - The camera is required: not yet asked, it is asked first; refused, nothing can be recorded
///   (``problem`` is `notAuthorized`).
/// - The microphone is asked only when takes are to have sound; refused, takes are recorded without sound rather than
///   not at all (``recordsSound`` is false).
/// - With access settled, the session gets the camera input, the microphone input (when it records sound), the movie
///   file output, and starts running.
public struct CapturePlan: Sendable, Hashable {
    /// One thing to do, in order.
    public enum Step: Sendable, Hashable {
        /// Ask the user for access to the device (`AVCaptureDevice.requestAccess(for:)`), then plan again.
        case requestAccess(CaptureDevice)
        /// Add the device's input to the session (`canAddInput(_:)`, then `addInput(_:)`); a refusal or a missing
        /// device is `RecorderProblem.deviceUnavailable` for the camera, and a take without sound for the microphone.
        case addInput(CaptureDevice)
        /// Add the movie file output (`canAddOutput(_:)`, then `addOutput(_:)`); a refusal is
        /// `RecorderProblem.deviceUnavailable`.
        case addMovieOutput
        /// Start the session (`startRunning()`, off the main thread).
        case startRunning
    }

    /// The steps, in order; empty when nothing can be recorded.
    public var steps: [Step]
    /// Why nothing can be recorded, or nil.
    public var problem: RecorderProblem?
    /// Whether the takes will have sound (when the plan adds inputs).
    public var recordsSound: Bool

    /// The plan for these authorizations; `wantsSound` is the app's microphone setting.
    public init(camera: CaptureAuthorization, microphone: CaptureAuthorization, wantsSound: Bool) {
        let asksMicrophone = wantsSound && microphone == .notDetermined
        switch camera {
        case .restricted, .denied:
            self.init(steps: [], problem: .notAuthorized, recordsSound: false)
        case .notDetermined:
            let asks: [Step] = [.requestAccess(.camera)] + (asksMicrophone ? [.requestAccess(.microphone)] : [])
            self.init(steps: asks, problem: nil, recordsSound: false)
        case .authorized where asksMicrophone:
            self.init(steps: [.requestAccess(.microphone)], problem: nil, recordsSound: false)
        case .authorized:
            let sound = wantsSound && microphone == .authorized
            let inputs: [Step] = [.addInput(.camera)] + (sound ? [.addInput(.microphone)] : [])
            self.init(steps: inputs + [.addMovieOutput, .startRunning], problem: nil, recordsSound: sound)
        }
    }

    private init(steps: [Step], problem: RecorderProblem?, recordsSound: Bool) {
        self.steps = steps
        self.problem = problem
        self.recordsSound = recordsSound
    }

    /// Whether the performer must ask for access and plan again before it can configure the session.
    public var asksAccess: Bool {
        steps.contains { if case .requestAccess = $0 { true } else { false } }
    }
}
