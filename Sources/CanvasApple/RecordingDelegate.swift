#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import CoreMedia
    import Foundation

    /// What the movie file output told its delegate, in CanvasKit's terms.
    enum RecorderCallback: Sendable {
        /// The recorder started writing the file; its first sample's host time (see `firstSampleTime`).
        case started(URL, HostTime)
        /// The file was handed over: what ended it, whether it is playable, and the seconds recorded into it.
        case finished(URL, ending: RecorderAnswers.Ending, playable: Bool, duration: Double)
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
            let (ending, playable) = Self.ending(of: error)
            // What the output recorded into the file it just finished (the segment's length).
            answer(
                .finished(outputFileURL, ending: ending, playable: playable, duration: output.recordedDuration.seconds))
        }

        /// The recorder's error as CanvasKit's ending, and whether the file is playable (AVFoundation says so in the
        /// error's `AVErrorRecordingSuccessfullyFinishedKey`). `RecorderAnswers` decides what each ending becomes.
        static func ending(of error: (any Error)?) -> (RecorderAnswers.Ending, playable: Bool) {
            guard let error else { return (.stopped, true) }
            let failure = error as NSError
            let playable = failure.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool ?? false
            guard failure.domain == AVError.errorDomain, let code = AVError.Code(rawValue: failure.code) else {
                return (.problem(.other), playable)
            }
            switch code {
            case .maximumDurationReached: return (.reachedMaximumDuration, playable)
            // No file size limit is set: a file that reached one anyway ends as the app's stop when it is playable.
            case .maximumFileSizeReached: return (playable ? .stopped : .problem(.other), playable)
            case .diskFull: return (.problem(.diskFull), playable)
            case .deviceWasDisconnected: return (.problem(.deviceUnavailable), playable)
            case .mediaServicesWereReset: return (.problem(.mediaServicesFailed), playable)
            default: return (.problem(.other), playable)
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
