#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import CoreMedia
    import Foundation

    /// What the movie file output told its delegate, in CanvasKit's terms.
    enum RecorderCallback: Sendable {
        /// The recorder started writing the file; its first sample's host time (see `firstSampleTime`).
        case started(URL, HostTime)
        /// The file was handed over: what ended it (nil: nothing went wrong) and whether it is playable.
        case finished(URL, problem: RecorderProblem?, playable: Bool)
    }

    /// The movie file output's delegate: AVFoundation calls it on a queue of its own, and it passes each callback on, in
    /// order, to `answer` (the capture performer, which hops to the main queue).
    final class RecordingDelegate: NSObject, AVCaptureFileOutputRecordingDelegate, Sendable {
        private let answer: @Sendable (RecorderCallback) -> Void

        init(answer: @escaping @Sendable (RecorderCallback) -> Void) {
            self.answer = answer
        }

        func fileOutput(
            _ output: AVCaptureFileOutput, didStartRecordingTo fileURL: URL, from connections: [AVCaptureConnection]
        ) {
            // Called once the first samples are written: the first was taken what the output recorded by then earlier
            // (less the capture latency, which is not measured here).
            let now = HostTime(seconds: CMClockGetTime(CMClockGetHostTimeClock()).seconds)
            let first = RecorderAnswers.firstSampleTime(
                calledAt: now, recordedDuration: output.recordedDuration.seconds)
            answer(.started(fileURL, first))
        }

        func fileOutput(
            _ output: AVCaptureFileOutput, didFinishRecordingTo outputFileURL: URL,
            from connections: [AVCaptureConnection],
            error: (any Error)?
        ) {
            let (problem, playable) = Self.problem(of: error)
            answer(.finished(outputFileURL, problem: problem, playable: playable))
        }

        /// The recorder's error as a problem, and whether the file is playable (AVFoundation says so in the error's
        /// `AVErrorRecordingSuccessfullyFinishedKey`). A recording limit is not a problem: the take ends as `stop`.
        static func problem(of error: (any Error)?) -> (RecorderProblem?, playable: Bool) {
            guard let error else { return (nil, true) }
            let failure = error as NSError
            let playable = failure.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool ?? false
            guard failure.domain == AVError.errorDomain, let code = AVError.Code(rawValue: failure.code) else {
                return (.other, playable)
            }
            switch code {
            case .maximumDurationReached, .maximumFileSizeReached: return (playable ? nil : .other, playable)
            case .diskFull: return (.diskFull, playable)
            case .deviceWasDisconnected: return (.deviceUnavailable, playable)
            case .mediaServicesWereReset: return (.mediaServicesFailed, playable)
            case .sessionWasInterrupted: return (.other, playable)
            default: return (.other, playable)
            }
        }
    }

    extension RecorderProblem {
        /// The problem an interruption of the capture session is (`AVCaptureSessionInterruptionReasonKey`).
        init(interruption reason: Int?) {
            guard let reason = reason.flatMap(AVCaptureSession.InterruptionReason.init(rawValue:)) else {
                self = .other
                return
            }
            switch reason {
            case .audioDeviceInUseByAnotherClient: self = .call
            case .videoDeviceInUseByAnotherClient, .videoDeviceNotAvailableWithMultipleForegroundApps:
                self = .cameraTaken
            case .videoDeviceNotAvailableInBackground: self = .background
            case .videoDeviceNotAvailableDueToSystemPressure: self = .systemPressure
            @unknown default: self = .other
            }
        }
    }

    extension CaptureDevice {
        /// The device's media type.
        var mediaType: AVMediaType { self == .camera ? .video : .audio }

        /// What the user allowed for it.
        var authorization: CaptureAuthorization {
            switch AVCaptureDevice.authorizationStatus(for: mediaType) {
            case .notDetermined: .notDetermined
            case .restricted: .restricted
            case .denied: .denied
            case .authorized: .authorized
            @unknown default: .denied
            }
        }
    }
#endif
