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
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/beginconfiguration()
    open func beginConfiguration() {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/commitconfiguration()
    open func commitConfiguration() {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/inputs
    open var inputs: [AVCaptureInput] { [] }
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/outputs
    open var outputs: [AVCaptureOutput] { [] }
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/canaddinput(_:)
    open func canAddInput(_ input: AVCaptureInput) -> Bool { false }
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/addinput(_:)
    open func addInput(_ input: AVCaptureInput) {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/canaddoutput(_:)
    open func canAddOutput(_ output: AVCaptureOutput) -> Bool { false }
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/addoutput(_:)
    open func addOutput(_ output: AVCaptureOutput) {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/wasinterruptednotification
    public static let wasInterruptedNotification = NSNotification.Name("AVCaptureSessionWasInterruptedNotification")
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/interruptionendednotification
    public static let interruptionEndedNotification = NSNotification.Name("AVCaptureSessionInterruptionEndedNotification")
    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/runtimeerrornotification
    public static let runtimeErrorNotification = NSNotification.Name("AVCaptureSessionRuntimeErrorNotification")

    /// https://developer.apple.com/documentation/avfoundation/avcapturesession/interruptionreason
    public enum InterruptionReason: Int, Sendable {
        case videoDeviceNotAvailableInBackground = 1
        case audioDeviceInUseByAnotherClient = 2
        case videoDeviceInUseByAnotherClient = 3
        case videoDeviceNotAvailableWithMultipleForegroundApps = 4
        case videoDeviceNotAvailableDueToSystemPressure = 5
    }
}

/// https://developer.apple.com/documentation/avfoundation/avcapturesessioninterruptionreasonkey
public let AVCaptureSessionInterruptionReasonKey: String = "AVCaptureSessionInterruptionReasonKey"

/// https://developer.apple.com/documentation/avfoundation/avmediatype
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/avfoundation/avmediatype/video
    public static let video = AVMediaType(rawValue: "vide")
    /// https://developer.apple.com/documentation/avfoundation/avmediatype/audio
    public static let audio = AVMediaType(rawValue: "soun")
}

/// https://developer.apple.com/documentation/avfoundation/avauthorizationstatus
public enum AVAuthorizationStatus: Int, Sendable {
    case notDetermined = 0, restricted = 1, denied = 2, authorized = 3
}

/// https://developer.apple.com/documentation/avfoundation/avcapturedevice
open class AVCaptureDevice: NSObject {
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/default(for:)
    open class func `default`(for mediaType: AVMediaType) -> AVCaptureDevice? { nil }
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/authorizationstatus(for:)
    open class func authorizationStatus(for mediaType: AVMediaType) -> AVAuthorizationStatus { .notDetermined }
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/requestaccess(for:completionhandler:)
    /// (the async form Swift imports it as: `class func requestAccess(for mediaType: AVMediaType) async -> Bool`)
    open class func requestAccess(for mediaType: AVMediaType) async -> Bool { false }
    /// https://developer.apple.com/documentation/avfoundation/avcapturedevice/hasmediatype(_:)
    open func hasMediaType(_ mediaType: AVMediaType) -> Bool { false }
}

/// https://developer.apple.com/documentation/avfoundation/avcaptureinput
open class AVCaptureInput: NSObject {}

/// https://developer.apple.com/documentation/avfoundation/avcapturedeviceinput
open class AVCaptureDeviceInput: AVCaptureInput {
    /// https://developer.apple.com/documentation/avfoundation/avcapturedeviceinput/init(device:)
    public init(device: AVCaptureDevice) throws {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturedeviceinput/device
    open var device: AVCaptureDevice { AVCaptureDevice() }
}

/// https://developer.apple.com/documentation/avfoundation/avcaptureconnection
open class AVCaptureConnection: NSObject {
    /// https://developer.apple.com/documentation/avfoundation/avcaptureconnection/isenabled
    open var isEnabled: Bool = true
}

/// https://developer.apple.com/documentation/avfoundation/avcaptureoutput
open class AVCaptureOutput: NSObject {
    /// https://developer.apple.com/documentation/avfoundation/avcaptureoutput/connection(with:)
    open func connection(with mediaType: AVMediaType) -> AVCaptureConnection? { nil }
}

/// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput
open class AVCaptureFileOutput: AVCaptureOutput {
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput/isrecording
    open var isRecording: Bool { false }
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput/recordedduration
    open var recordedDuration: CMTime { .zero }
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutput/maxrecordedduration
    open var maxRecordedDuration: CMTime = .invalid
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
///
/// Its one required method is declared; the optional ones (such as `fileOutput(_:didStartRecordingTo:from:)`) are
/// listed in ../optional-requirements.txt, not declared (see UIKit's UICollectionViewDelegate).
public protocol AVCaptureFileOutputRecordingDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/avfoundation/avcapturefileoutputrecordingdelegate/fileoutput(_:didfinishrecordingto:from:error:)
    func fileOutput(
        _ output: AVCaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [AVCaptureConnection],
        error: (any Error)?)
}

/// https://developer.apple.com/documentation/avfoundation/averrorrecordingsuccessfullyfinishedkey
public let AVErrorRecordingSuccessfullyFinishedKey: String = "AVErrorRecordingSuccessfullyFinishedKey"

/// https://developer.apple.com/documentation/avfoundation/averror
public struct AVError: Error, Sendable {
    /// https://developer.apple.com/documentation/avfoundation/averror/code (the cases the Apple layer reads)
    public enum Code: Int, Sendable {
        case unknown = -11800
        case outOfMemory = -11801
        case diskFull = -11807
        case deviceWasDisconnected = -11808
        case maximumDurationReached = -11810
        case maximumFileSizeReached = -11811
        case sessionWasInterrupted = -11818
        case mediaServicesWereReset = -11819
    }
    /// https://developer.apple.com/documentation/avfoundation/averror/errordomain
    public static let errorDomain = "AVFoundationErrorDomain"
}

/// https://developer.apple.com/documentation/avfoundation/avcapturevideopreviewlayer
open class AVCaptureVideoPreviewLayer: CALayer {
    /// https://developer.apple.com/documentation/avfoundation/avcapturevideopreviewlayer/init(session:)
    public init(session: AVCaptureSession) {}
    /// https://developer.apple.com/documentation/avfoundation/avcapturevideopreviewlayer/videogravity
    open var videoGravity: AVLayerVideoGravity = .resizeAspect
}

/// https://developer.apple.com/documentation/avfoundation/avlayervideogravity
public struct AVLayerVideoGravity: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/avfoundation/avlayervideogravity/resizeaspect
    public static let resizeAspect = AVLayerVideoGravity(rawValue: "AVLayerVideoGravityResizeAspect")
    /// https://developer.apple.com/documentation/avfoundation/avlayervideogravity/resizeaspectfill
    public static let resizeAspectFill = AVLayerVideoGravity(rawValue: "AVLayerVideoGravityResizeAspectFill")
}

// MARK: Assets and images

/// https://developer.apple.com/documentation/avfoundation/avasset
open class AVAsset: NSObject {}

/// https://developer.apple.com/documentation/avfoundation/avasynchronouskeyvalueloading
public protocol AVAsynchronousKeyValueLoading {}

extension AVAsynchronousKeyValueLoading {
    /// https://developer.apple.com/documentation/avfoundation/avasynchronouskeyvalueloading/load(_:isolation:)
    public func load<T>(_ property: AVAsyncProperty<Self, T>, isolation: isolated (any Actor)? = #isolation) async throws -> T {
        throw CocoaError(.featureUnsupported)
    }
}

extension AVAsset: AVAsynchronousKeyValueLoading {}

/// https://developer.apple.com/documentation/avfoundation/avpartialasyncproperty
/// (Apple's is `Sendable`; this stand-in holds no state, so there is nothing to race on.)
public class AVPartialAsyncProperty<Root>: @unchecked Sendable {}

/// https://developer.apple.com/documentation/avfoundation/avasyncproperty
/// (Apple's is `Sendable`; this stand-in holds no state, so there is nothing to race on.)
public class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {}

extension AVPartialAsyncProperty where Root: AVAsset {
    /// https://developer.apple.com/documentation/avfoundation/avpartialasyncproperty/duration
    public static var duration: AVAsyncProperty<Root, CMTime> { AVAsyncProperty() }
}

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
    /// https://developer.apple.com/documentation/avfoundation/avplayer/init()
    public override init() {}
    /// https://developer.apple.com/documentation/avfoundation/avplayer/init(url:)
    public init(url URL: URL) {}
    /// https://developer.apple.com/documentation/avfoundation/avplayer/status-swift.enum
    public enum Status: Int, Sendable {
        case unknown = 0
        case readyToPlay = 1
        case failed = 2
    }
    /// https://developer.apple.com/documentation/avfoundation/avplayer/status-swift.property
    open var status: AVPlayer.Status { .unknown }
    /// https://developer.apple.com/documentation/avfoundation/avplayer/automaticallywaitstominimizestalling
    open var automaticallyWaitsToMinimizeStalling: Bool = true
    /// https://developer.apple.com/documentation/avfoundation/avplayer/setrate(_:time:athosttime:)
    open func setRate(_ rate: Float, time itemTime: CMTime, atHostTime hostClockTime: CMTime) {}
    /// https://developer.apple.com/documentation/avfoundation/avplayer/preroll(atrate:completionhandler:)
    nonisolated open func preroll(atRate rate: Float, completionHandler: (@Sendable (Bool) -> Void)? = nil) {}
    /// https://developer.apple.com/documentation/avfoundation/avplayer/cancelpendingprerolls()
    open func cancelPendingPrerolls() {}
    /// https://developer.apple.com/documentation/avfoundation/avplayer/pause()
    open func pause() {}
}

/// https://developer.apple.com/documentation/avfoundation/avplayeritem
open class AVPlayerItem: NSObject {
    /// https://developer.apple.com/documentation/avfoundation/avplayeritem/init(url:)
    public init(url URL: URL) {}
}

/// https://developer.apple.com/documentation/avfoundation/avqueueplayer
open class AVQueuePlayer: AVPlayer {
    /// https://developer.apple.com/documentation/avfoundation/avqueueplayer/init(items:)
    nonisolated public init(items: [AVPlayerItem]) { super.init() }
    /// https://developer.apple.com/documentation/avfoundation/avqueueplayer/insert(_:after:)
    nonisolated open func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {}
    /// https://developer.apple.com/documentation/avfoundation/avqueueplayer/removeallitems()
    nonisolated open func removeAllItems() {}
    /// https://developer.apple.com/documentation/avfoundation/avqueueplayer/advancetonextitem()
    nonisolated open func advanceToNextItem() {}
}

/// https://developer.apple.com/documentation/avfoundation/avplayerlayer
open class AVPlayerLayer: CALayer {
    /// https://developer.apple.com/documentation/avfoundation/avplayerlayer/init(player:)
    public init(player: AVPlayer?) {}
    /// https://developer.apple.com/documentation/avfoundation/avplayerlayer/videogravity
    open var videoGravity: AVLayerVideoGravity = .resizeAspect
}

/// https://developer.apple.com/documentation/avfaudio/avaudioplayer (AVFAudio, which AVFoundation exports)
open class AVAudioPlayer: NSObject {
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/init(contentsof:)
    public init(contentsOf url: URL) throws {}
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/preparetoplay()
    open func prepareToPlay() -> Bool { false }
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/play(attime:)
    open func play(atTime time: TimeInterval) -> Bool { false }
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/stop()
    open func stop() {}
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/currenttime
    open var currentTime: TimeInterval = 0
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/devicecurrenttime
    open var deviceCurrentTime: TimeInterval { 0 }
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/duration
    open var duration: TimeInterval { 0 }
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/volume
    open var volume: Float = 1
    /// https://developer.apple.com/documentation/avfaudio/avaudioplayer/numberofloops
    open var numberOfLoops: Int = 0
}

// MARK: Key-value observing (Foundation on Apple platforms; swift-corelibs-foundation has none)

/// https://developer.apple.com/documentation/foundation/nskeyvalueobservingoptions
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let new = NSKeyValueObservingOptions(rawValue: 1)
    public static let old = NSKeyValueObservingOptions(rawValue: 2)
    public static let initial = NSKeyValueObservingOptions(rawValue: 4)
    public static let prior = NSKeyValueObservingOptions(rawValue: 8)
}

/// https://developer.apple.com/documentation/foundation/nskeyvalueobservedchange
public struct NSKeyValueObservedChange<Value> {
    public let newValue: Value?
    public let oldValue: Value?
}

/// https://developer.apple.com/documentation/foundation/nskeyvalueobservation
open class NSKeyValueObservation: NSObject {
    /// https://developer.apple.com/documentation/foundation/nskeyvalueobservation/invalidate()
    open func invalidate() {}
}

/// The protocol NSObject conforms to in Apple's Foundation, whose extension declares `observe`
public protocol _KeyValueCodingAndObserving {}

extension _KeyValueCodingAndObserving {
    /// https://developer.apple.com/documentation/swift/using-key-value-observing-in-swift
    public func observe<Value>(_ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [], changeHandler: @escaping (Self, NSKeyValueObservedChange<Value>) -> Void) -> NSKeyValueObservation { NSKeyValueObservation() }
}

extension NSObject: _KeyValueCodingAndObserving {}
