// swift-format-ignore-file
// (Not formatted or linted: Apple's names and declarations as Apple spells them.)
// A check of our code against Apple's signatures, not AVFoundation: see ../README.md. Each declaration is copied in
// signature from the page cited above it; the bodies do nothing. The classes are not `Sendable`, as in Apple's SDK:
// code that hands one to another thread must say why that is safe.
@_exported import CoreGraphics
@_exported import CoreMedia
@_exported import Foundation
@_exported import QuartzCore

// MARK: Capture

/// https://developer.apple.com/documentation/avfoundation/avcapturesession
open class AVCaptureSession: NSObject {
    public override init() {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/isrunning
    open var isRunning: Bool { false }
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/startrunning()
    open func startRunning() {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/stoprunning()
    open func stopRunning() {}
}

/// https://developer.apple.com/documentation/avfoundation/avcaptureconnection
open class AVCaptureConnection: NSObject {}

/// https://developer.apple.com/documentation/avfoundation/avcaptureoutput
open class AVCaptureOutput: NSObject {}

/// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput
open class AVCaptureFileOutput: AVCaptureOutput {
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput/isrecording
    open var isRecording: Bool { false }
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput/startrecording(to:recordingdelegate:)
    open func startRecording(
        to outputFileURL: URL, recordingDelegate delegate: any AVCaptureFileOutputRecordingDelegate
    ) {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput/stoprecording()
    open func stopRecording() {}
}

/// https://developer.apple.com/documentation/avfoundation/avcapturemoviefileoutput
open class AVCaptureMovieFileOutput: AVCaptureFileOutput {
    public override init() {}
}

/// https://developer.apple.com/documentation/avfoundation/avcapturefileoutputrecordingdelegate
public protocol AVCaptureFileOutputRecordingDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutputrecordingdelegate/fileoutput(_:didfinishrecordingto:from:error:)
    func fileOutput(
        _ output: AVCaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [AVCaptureConnection],
        error: (any Error)?)
}

/// https://developer.apple.com/documentation/avfoundation/averrorrecordingsuccessfullyfinishedkey
public let AVErrorRecordingSuccessfullyFinishedKey: String = "AVErrorRecordingSuccessfullyFinishedKey"

/// https://developer.apple.com/documentation/avfoundation/avcapturevideopreviewlayer
open class AVCaptureVideoPreviewLayer: CALayer {
    /// https://developer.apple.com/documentation/avfoundation/avcapturevideopreviewlayer/init(session:)
    public init(session: AVCaptureSession) {}
}

// MARK: Assets and images

/// https://developer.apple.com/documentation/avfoundation/avasset
open class AVAsset: NSObject {}

/// https://developer.apple.com/documentation/avfoundation/avurlasset
open class AVURLAsset: AVAsset {
    /// https://developer.apple.com/documentation/avfoundation/avurlasset/init(url:options:)
    public init(url URL: URL, options: [String: Any]? = nil) {}
}

/// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator
open class AVAssetImageGenerator: NSObject {
    /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/init(asset:)
    public init(asset: AVAsset) {}
    /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/appliespreferredtracktransform
    open var appliesPreferredTrackTransform: Bool = false
    /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/maximumsize
    open var maximumSize: CGSize = .zero
    /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/dynamicrangepolicy-swift.property
    open var dynamicRangePolicy: AVAssetImageGenerator.DynamicRangePolicy = .forceSDR
    /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/image(at:)
    open func image(at time: CMTime) async throws -> (image: CGImage, actualTime: CMTime) {
        throw CocoaError(.featureUnsupported)
    }

    /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/dynamicrangepolicy-swift.struct
    public struct DynamicRangePolicy: Hashable, Sendable, RawRepresentable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/dynamicrangepolicy-swift.struct/forcesdr
        public static let forceSDR = DynamicRangePolicy(rawValue: "DynamicRangePolicyForceSDR")
        /// https://developer.apple.com/documentation/avfoundation/avassetimagegenerator/dynamicrangepolicy-swift.struct/matchsource
        public static let matchSource = DynamicRangePolicy(rawValue: "DynamicRangePolicyMatchSource")
    }
}

// MARK: Playback

/// https://developer.apple.com/documentation/avfoundation/avplayer
open class AVPlayer: NSObject {
    /// https://developer.apple.com/documentation/avfoundation/avplayer/init(url:)
    public init(url URL: URL) {}
    /// https://developer.apple.com/documentation/avfoundation/avplayer/automaticallywaitstominimizestalling
    open var automaticallyWaitsToMinimizeStalling: Bool = true
    /// https://developer.apple.com/documentation/avfoundation/avplayer/setrate(_:time:athosttime:)
    open func setRate(_ rate: Float, time itemTime: CMTime, atHostTime hostClockTime: CMTime) {}
}
