// swift-format-ignore-file
// (Not formatted or linted: Apple's names and declarations as Apple spells them.)
// A check of our code against Apple's signatures, not Core Animation: see ../README.md.
@_exported import CoreGraphics

/// https://developer.apple.com/documentation/quartzcore/calayer (not main-actor isolated)
open class CALayer {
    /// https://developer.apple.com/documentation/quartzcore/calayer/init()
    public init() {}
    /// https://developer.apple.com/documentation/quartzcore/calayer/frame
    open var frame: CGRect = .zero
    /// https://developer.apple.com/documentation/quartzcore/calayer/bounds
    open var bounds: CGRect = .zero
    /// https://developer.apple.com/documentation/quartzcore/calayer/borderwidth
    open var borderWidth: CGFloat = 0
    /// https://developer.apple.com/documentation/quartzcore/calayer/superlayer
    open var superlayer: CALayer? { nil }
    /// https://developer.apple.com/documentation/quartzcore/calayer/insertsublayer(_:at:)
    open func insertSublayer(_ layer: CALayer, at idx: UInt32) {}
    /// https://developer.apple.com/documentation/quartzcore/calayer/removefromsuperlayer()
    open func removeFromSuperlayer() {}
}
