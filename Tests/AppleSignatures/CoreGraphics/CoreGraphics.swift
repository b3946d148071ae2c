// swift-format-ignore-file
// (Not formatted or linted: Apple's names and declarations as Apple spells them.)
// A check of our code against Apple's signatures, not a CoreGraphics: see ../README.md. CGFloat, CGPoint, CGSize and
// CGRect come from Foundation, which declares them on Linux too.
@_exported import Foundation

/// On Apple platforms `CFData` is CoreFoundation's type, toll-free bridged with `NSData`: `Data(...) as CFData` is the
/// usual spelling. Declared as `NSData` here so that the same expression type-checks.
/// https://developer.apple.com/documentation/corefoundation/cfdata
public typealias CFData = NSData

/// Likewise `CFString` and `NSString`. https://developer.apple.com/documentation/corefoundation/cfstring
public typealias CFString = NSString

/// https://developer.apple.com/documentation/coregraphics/cgimage
public final class CGImage {
    /// https://developer.apple.com/documentation/coregraphics/cgimage/init(width:height:bitspercomponent:bitsperpixel:bytesperrow:space:bitmapinfo:provider:decode:shouldinterpolate:intent:)
    public init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
        bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
        intent: CGColorRenderingIntent
    ) { return nil }
    /// https://developer.apple.com/documentation/coregraphics/cgimage/width
    public var width: Int { 0 }
    /// https://developer.apple.com/documentation/coregraphics/cgimage/height
    public var height: Int { 0 }
}

/// https://developer.apple.com/documentation/coregraphics/cgcolorspace
public final class CGColorSpace {
    /// https://developer.apple.com/documentation/coregraphics/cgcolorspace/init(name:)
    public init?(name: CFString) { return nil }
    /// https://developer.apple.com/documentation/coregraphics/cgcolorspace/srgb
    /// (Apple: `class let sRGB: CFString`; computed here because NSString is not Sendable on Linux.)
    public static var sRGB: CFString { "kCGColorSpaceSRGB" }
}

/// https://developer.apple.com/documentation/coregraphics/cgdataprovider
public final class CGDataProvider {
    /// https://developer.apple.com/documentation/coregraphics/cgdataprovider/init(data:)
    public init?(data: CFData) { return nil }
}

/// https://developer.apple.com/documentation/coregraphics/cgbitmapinfo
public struct CGBitmapInfo: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// https://developer.apple.com/documentation/coregraphics/cgimagealphainfo
public enum CGImageAlphaInfo: UInt32, Sendable {
    case none = 0
    case premultipliedLast, premultipliedFirst, last, first, noneSkipLast, noneSkipFirst, alphaOnly
}

/// https://developer.apple.com/documentation/coregraphics/cgcolorrenderingintent
public enum CGColorRenderingIntent: Int32, Sendable {
    case defaultIntent = 0
    case absoluteColorimetric, relativeColorimetric, perceptual, saturation
}

/// https://developer.apple.com/documentation/coregraphics/cgcontext
public final class CGContext {
    /// https://developer.apple.com/documentation/coregraphics/cgcontext/init(data:width:height:bitspercomponent:bytesperrow:space:bitmapinfo:)
    public init?(
        data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int, bytesPerRow: Int,
        space: CGColorSpace, bitmapInfo: UInt32
    ) { return nil }
    /// https://developer.apple.com/documentation/coregraphics/cgcontext/draw(_:in:byTiling:)
    public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) {}
}
