/// How a video codes light levels (its transfer characteristic).
public enum DynamicRange: String, Sendable, Hashable {
    /// Standard dynamic range (BT.709, BT.601, sRGB and similar gamma curves), or not stated.
    case standard
    /// HDR10 and other PQ video (SMPTE ST 2084): absolute light levels up to 10,000 cd/m2.
    case pq
    /// Hybrid Log-Gamma (ARIB STD-B67, BT.2100): what phones and broadcasters record by default.
    case hlg
}
