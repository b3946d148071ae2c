// swift-format-ignore-file
// (Not formatted or linted: Apple's names and declarations as Apple spells them.)
// A check of our code against Apple's signatures, not a SwiftUI: see ../README.md. Each declaration is copied in
// signature from the page cited above it (generic views are simplified to the forms the docs use); nothing renders.
@_exported import CoreGraphics
@_exported import Foundation

/// https://developer.apple.com/documentation/swiftui/view
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    /// https://developer.apple.com/documentation/swiftui/view/body-8kl5o
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public var body: Never { fatalError("Never has no body") }
}

/// A view with no body of its own (SwiftUI's primitive views).
public protocol PrimitiveView: View where Body == Never {}

extension PrimitiveView {
    public var body: Never { fatalError("a primitive view has no body") }
}

/// https://developer.apple.com/documentation/swiftui/viewbuilder
@resultBuilder @MainActor
public struct ViewBuilder {
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock()
    public static func buildBlock() -> EmptyView { EmptyView() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-(Content)
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-(_...)
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<
        (repeat each Content)
    > { TupleView((repeat each content)) }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildexpression(_:)
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildif(_:)
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(first:)
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent)
        -> _ConditionalContent<TrueContent, FalseContent>
    { _ConditionalContent() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(second:)
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent)
        -> _ConditionalContent<TrueContent, FalseContent>
    { _ConditionalContent() }
}

extension Optional: View where Wrapped: View {
    public var body: Never { fatalError("a primitive view has no body") }
}

/// https://developer.apple.com/documentation/swiftui/emptyview
public struct EmptyView: PrimitiveView {
    public init() {}
}

/// https://developer.apple.com/documentation/swiftui/tupleview
public struct TupleView<T>: PrimitiveView {
    public var value: T
    public init(_ value: T) { self.value = value }
}

/// What `buildEither` makes (SwiftUI's `_ConditionalContent`).
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: PrimitiveView {}

/// https://developer.apple.com/documentation/swiftui/text
public struct Text: PrimitiveView {
    /// https://developer.apple.com/documentation/swiftui/text/init(_:)-9d1g4
    public init<S: StringProtocol>(_ content: S) {}
}

/// https://developer.apple.com/documentation/swiftui/image
public struct Image: PrimitiveView {
    /// https://developer.apple.com/documentation/swiftui/image/init(systemname:)
    public init(systemName: String) {}
}

/// https://developer.apple.com/documentation/swiftui/progressview (the indeterminate `init()`)
public struct ProgressView: PrimitiveView {
    /// https://developer.apple.com/documentation/swiftui/progressview/init()
    public init() {}
}

/// https://developer.apple.com/documentation/swiftui/griditem
public struct GridItem: Sendable {
    /// https://developer.apple.com/documentation/swiftui/griditem/size-swift.enum
    public enum Size: Sendable {
        case fixed(CGFloat)
        case flexible(minimum: CGFloat = 10, maximum: CGFloat = .infinity)
        case adaptive(minimum: CGFloat, maximum: CGFloat = .infinity)
    }
    /// https://developer.apple.com/documentation/swiftui/griditem/init(_:spacing:alignment:)
    public init(_ size: GridItem.Size = .flexible(), spacing: CGFloat? = nil) {}
}

/// https://developer.apple.com/documentation/swiftui/lazyvgrid
public struct LazyVGrid<Content: View>: PrimitiveView {
    /// https://developer.apple.com/documentation/swiftui/lazyvgrid/init(columns:alignment:spacing:pinnedviews:content:)
    public init(columns: [GridItem], spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
}

/// https://developer.apple.com/documentation/swiftui/foreach
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content: View>: PrimitiveView {
    /// https://developer.apple.com/documentation/swiftui/foreach/init(_:id:content:)
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content)
    {}
}

/// A view with a gesture attached.
public struct _TapGestureView<Content: View>: PrimitiveView {}

extension View {
    /// https://developer.apple.com/documentation/swiftui/view/ontapgesture(count:perform:)
    public func onTapGesture(count: Int = 1, perform action: @escaping () -> Void) -> some View {
        _TapGestureView<Self>()
    }
}
