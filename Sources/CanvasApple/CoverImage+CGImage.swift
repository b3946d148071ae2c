#if canImport(UIKit) && canImport(AVFoundation)
    import CanvasKit
    import CoreGraphics
    import Foundation

    extension CoverImage {
        /// The cover as a `CGImage` over the same bytes (copied once into the image's data, never rearranged); nil only
        /// if Core Graphics refuses the layout, which a valid `CoverImage` never has.
        public var cgImage: CGImage? {
            let alpha: CGImageAlphaInfo = pixelFormat == .rgba ? .last : .none
            guard let space = CGColorSpace(name: CGColorSpace.sRGB),
                let provider = CGDataProvider(data: Data(pixels) as CFData)
            else { return nil }
            return CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: pixelFormat.bytesPerPixel * 8,
                bytesPerRow: bytesPerRow, space: space, bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue),
                provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)
        }
    }
#endif
