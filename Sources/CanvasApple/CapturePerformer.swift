#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import CoreMedia
    import Dispatch
    import Foundation

    /// The board's effects carried out with AVFoundation: the camera, the recorder, the synced playback of the other takes
    /// and the take files. Every decision is CanvasKit's (`CapturePlan`, `RecorderAnswers`,
    /// `SyncedPlayback.playerStarts(ready:margin:)`); this class turns them into calls and AVFoundation's callbacks into
    /// board events.
    ///
    /// - ``prepare()`` asks for camera (and, with ``wantsSound``, microphone) access as the plan says, then configures the
    ///   session (camera and microphone inputs, the movie file output) and starts it off the main thread.
    /// - `startRecording` sets the recorder as `RecorderSetup` says (the audio connection on or off with the board's
    ///   microphone setting, `maxRecordedDuration` from what is left of its maximum take length), starts it into a new
    ///   file in the takes folder, and starts the other takes' players and the soundtrack (``players``);
    ///   ``stopRecording()`` (the app's stop button) asks the recorder to finish; `takeDiscarded` stops it and removes the
    ///   file. A finished segment's length is its file's duration (the output's `recordedDuration` when it cannot be
    ///   read). The recorder's answers (started, finished, failed to start, cut short by an interruption the session
    ///   reports) go back to the board through `RecorderAnswers`, on the main actor: the one path.
    /// - Takes the board gave up (`takeReplaced`, `takeRemoved`, a restore's `takeInterrupted`) are removed when
    ///   ``removesGivenUpTakes`` is true.
    ///
    /// The preview is ``previewLayer``; the screen adapter decides which cell hosts it, and `CanvasCollectionCell` shows
    /// it. Main-actor isolated: drive the board from the main thread.
    @MainActor
    public final class CapturePerformer {
        /// The board whose effects this performs and to which the recorder's answers go.
        public let board: CanvasBoard
        /// The capture session: the camera and microphone inputs and the movie file output, once prepared.
        public let session = AVCaptureSession()
        /// The live camera preview, which the cell of the previewing canvas hosts.
        public let previewLayer: AVCaptureVideoPreviewLayer
        /// The takes and the soundtrack playing while a canvas records.
        public let players = SyncedPlayers()
        /// Whether takes are recorded with sound (the microphone is asked for only then).
        public var wantsSound: Bool
        /// Whether the files of takes the board gave up are removed (an app that keeps them in a library sets false).
        public var removesGivenUpTakes = true
        /// Why nothing can be recorded (after ``prepare()``), or nil.
        public private(set) var problem: RecorderProblem?

        private let output = AVCaptureMovieFileOutput()
        private let takesFolder: URL
        private let sessionQueue = DispatchQueue(label: "CanvasApple.CapturePerformer.session")
        private var answers = RecorderAnswers()
        private var isConfigured = false
        private var delegate: RecordingDelegate?
        private var observers: [any NSObjectProtocol] = []
        private var preparation: Task<RecorderProblem?, Never>?

        /// A performer for `board` that records new takes into `takesFolder`.
        public init(board: CanvasBoard, takesFolder: URL, wantsSound: Bool = true) {
            self.board = board
            self.takesFolder = takesFolder
            self.wantsSound = wantsSound
            previewLayer = AVCaptureVideoPreviewLayer(session: session)
            previewLayer.videoGravity = .resizeAspectFill
            delegate = RecordingDelegate { [weak self] callback in
                DispatchQueue.main.async { MainActor.assumeIsolated { self?.recorderAnswered(callback) } }
            }
            observeInterruptions()
        }

        /// Asks for access as ``CapturePlan`` says, then configures and starts the session; returns (and keeps in
        /// ``problem``) why nothing can be recorded, or nil. Calls while one runs wait for it (the session is
        /// configured once); after a problem, a later call tries again (the user may have allowed access meanwhile).
        @discardableResult
        public func prepare() async -> RecorderProblem? {
            if let preparation { return await preparation.value }
            let task = Task { await self.configureAsPlanned() }
            preparation = task
            let problem = await task.value
            if problem != nil { preparation = nil }
            return problem
        }

        private func configureAsPlanned() async -> RecorderProblem? {
            var plan = currentPlan()
            if plan.asksAccess {
                for case .requestAccess(let device) in plan.steps {
                    _ = await AVCaptureDevice.requestAccess(for: device.mediaType)
                }
                plan = currentPlan()
            }
            if plan.problem == nil, !isConfigured {
                let (session, output, settled) = (self.session, self.output, plan)
                plan.problem = await withCheckedContinuation { continuation in
                    sessionQueue.async { continuation.resume(returning: Self.configure(session, output, settled)) }
                }
                isConfigured = plan.problem == nil
            }
            problem = plan.problem
            return problem
        }

        /// The app's stop button: the recorder finishes the file, and its answer ends the take on the board.
        public func stopRecording() {
            let output = self.output
            sessionQueue.async { if output.isRecording { output.stopRecording() } }
        }

        private func currentPlan() -> CapturePlan {
            CapturePlan(
                camera: CaptureDevice.camera.authorization, microphone: CaptureDevice.microphone.authorization,
                wantsSound: wantsSound)
        }

        /// Carries out `plan`'s configuration steps on the session queue; the problem that stopped it, or nil.
        private nonisolated static func configure(
            _ session: AVCaptureSession, _ output: AVCaptureMovieFileOutput, _ plan: CapturePlan
        ) -> RecorderProblem? {
            session.beginConfiguration()
            // What an earlier configuration added is not added again (the session would refuse it).
            let devices = session.inputs.compactMap { $0 as? AVCaptureDeviceInput }.map(\.device)
            let contents = CapturePlan.SessionContents(
                inputs: Set(
                    CaptureDevice.allCases.filter { device in devices.contains { $0.hasMediaType(device.mediaType) } }),
                hasMovieOutput: session.outputs.contains { $0 === output }, isRunning: session.isRunning)
            for step in plan.configurationSteps(given: contents) {
                switch step {
                case .addInput(let device):
                    // A device the recording does not need (the microphone) is left out when it fails: takes
                    // without sound rather than none.
                    guard let capture = AVCaptureDevice.default(for: device.mediaType),
                        let input = try? AVCaptureDeviceInput(device: capture), session.canAddInput(input)
                    else {
                        if device.isRequired { return abandon(session) }
                        continue
                    }
                    session.addInput(input)
                case .addMovieOutput:
                    guard session.canAddOutput(output) else { return abandon(session) }
                    session.addOutput(output)
                case .startRunning:
                    session.commitConfiguration()
                    session.startRunning()
                    return nil
                case .requestAccess:
                    continue
                }
            }
            session.commitConfiguration()
            return nil
        }

        private nonisolated static func abandon(_ session: AVCaptureSession) -> RecorderProblem {
            session.commitConfiguration()
            return .deviceUnavailable
        }
    }

    extension CapturePerformer: @preconcurrency CanvasEffectPerformer {
        /// Carries out one of the board's effects (see the class notes).
        public func perform(_ effect: CanvasEffect) {
            switch effect {
            case .attachPreview where !isConfigured:
                Task { await prepare() }  // waits for a preparation already running
            case .startRecording(_, let playback, let settings):
                startRecording(playback, settings)
            case .takeDiscarded:
                answers.discardRequested()
                stopRecording()
            case .takeReplaced, .takeRemoved, .segmentRemoved:
                // Already gone: nothing to do.
                if removesGivenUpTakes {
                    for url in effect.givenUpFiles { try? FileManager.default.removeItem(at: url) }
                }
            case .takeInterrupted(_, let url?):
                if removesGivenUpTakes { try? FileManager.default.removeItem(at: url) }
            default:
                break
            }
            if effect.endsRecording { players.stop() }
        }

        private func startRecording(_ playback: SyncedPlayback, _ settings: RecordingSettings) {
            let file = takesFolder.appendingPathComponent("take-\(UUID().uuidString).mov")
            answers.recordingRequested(into: file, playback: playback, settings: settings)
            board.draft?.noteRecordingFile(file)
            guard isConfigured, let delegate else {
                let event = answers.couldNotStart(problem ?? .deviceUnavailable)
                // Not from inside the board's send: the answer comes after the effects of `record`.
                DispatchQueue.main.async { MainActor.assumeIsolated { self.send(event) } }
                return
            }
            players.start(playback)
            let (output, setup) = (self.output, RecorderSetup(settings))
            sessionQueue.async {
                // The microphone input stays in the session; its connection decides whether the file gets sound.
                output.connection(with: .audio)?.isEnabled = setup.enablesAudioConnection
                output.maxRecordedDuration =
                    setup.maximumDurationValue.map { CMTime(value: $0, timescale: RecorderSetup.timescale) } ?? .invalid
                output.startRecording(to: file, recordingDelegate: delegate)
            }
        }

        fileprivate func recorderAnswered(_ callback: RecorderCallback) {
            switch callback {
            case .started(let file, let time):
                send(answers.didStart(file: file, at: time))
            case .finished(let file, let ending, let playable, let recorded) where playable:
                // The finished file's duration is exact; the output's `recordedDuration` is the fallback.
                Task {
                    let length = try? await AVURLAsset(url: file).load(.duration).seconds
                    let duration = RecorderAnswers.segmentDuration(fileDuration: length, recordedDuration: recorded)
                    finish(file, ending: ending, playable: true, duration: duration)
                }
            case .finished(let file, let ending, let playable, let recorded):
                finish(file, ending: ending, playable: playable, duration: recorded)
            }
        }

        private func finish(_ file: URL, ending: RecorderAnswers.Ending, playable: Bool, duration: Double) {
            let finish = answers.didFinish(file: file, ending: ending, playable: playable, duration: duration)
            // The file may never have been written: nothing to remove then.
            if finish.file == .remove { try? FileManager.default.removeItem(at: file) }
            send(finish.event)
        }

        private func send(_ event: CanvasEvent?) {
            guard let event else { return }
            board.send(event, performingEffectsWith: self)
        }

        /// A call, another app taking the camera, the app going to the background, a media services failure: remembered,
        /// and reported with the recorder's finish.
        private func observeInterruptions() {
            let center = NotificationCenter.default
            observers.append(
                center.addObserver(forName: AVCaptureSession.wasInterruptedNotification, object: session, queue: .main)
                {
                    [weak self] notification in
                    let reason = notification.userInfo?[AVCaptureSessionInterruptionReasonKey] as? Int
                    MainActor.assumeIsolated { self?.answers.interrupted(RecorderProblem(interruption: reason)) }
                })
            observers.append(
                center.addObserver(forName: AVCaptureSession.runtimeErrorNotification, object: session, queue: .main) {
                    [weak self] _ in
                    MainActor.assumeIsolated { self?.answers.interrupted(.mediaServicesFailed) }
                })
        }
    }
#endif
