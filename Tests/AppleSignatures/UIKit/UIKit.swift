// swift-format-ignore-file
// (Not formatted or linted: Apple's names and declarations as Apple spells them.)
// A check of our code against Apple's signatures, not a UIKit: see ../README.md. Each declaration is copied in
// signature from the page cited above it; the bodies do nothing.
@_exported import CoreGraphics
@_exported import Foundation
@_exported import QuartzCore

// MARK: Index paths (UIKit's additions to Foundation's IndexPath)

extension IndexPath {
    /// https://developer.apple.com/documentation/foundation/indexpath/init(item:section:)
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// https://developer.apple.com/documentation/foundation/indexpath/item
    public var item: Int { self[1] }
    /// https://developer.apple.com/documentation/foundation/indexpath/section
    public var section: Int { self[0] }
}

// MARK: Views

/// https://developer.apple.com/documentation/uikit/uiresponder
@MainActor
open class UIResponder: NSObject {}

/// https://developer.apple.com/documentation/uikit/uiview
@MainActor
open class UIView: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiview/init(frame:)
    public init(frame: CGRect) {}
    /// https://developer.apple.com/documentation/uikit/uiview/init(coder:)
    public required init?(coder: NSCoder) {}
    /// https://developer.apple.com/documentation/uikit/uiview/bounds
    open var bounds: CGRect = .zero
    /// https://developer.apple.com/documentation/uikit/uiview/frame
    open var frame: CGRect = .zero
    /// https://developer.apple.com/documentation/uikit/uiview/layer
    open var layer: CALayer { CALayer() }
    /// https://developer.apple.com/documentation/uikit/uiview/ishidden
    open var isHidden: Bool = false
    /// https://developer.apple.com/documentation/uikit/uiview/addsubview(_:)
    open func addSubview(_ view: UIView) {}
    /// https://developer.apple.com/documentation/uikit/uiview/layoutsubviews()
    open func layoutSubviews() {}
}

/// https://developer.apple.com/documentation/uikit/uiimage
open class UIImage: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiimage/init(systemname:)
    public init?(systemName name: String) {}
    /// https://developer.apple.com/documentation/uikit/uiimage/init(cgimage:)
    public init(cgImage: CGImage) {}
}

/// https://developer.apple.com/documentation/uikit/uiimageview
@MainActor
open class UIImageView: UIView {
    /// https://developer.apple.com/documentation/uikit/uiimageview/init(image:)
    public init(image: UIImage?) { super.init(frame: .zero) }
    public required init?(coder: NSCoder) { super.init(frame: .zero) }
    /// https://developer.apple.com/documentation/uikit/uiimageview/image
    open var image: UIImage?
}

/// https://developer.apple.com/documentation/uikit/uilabel
@MainActor
open class UILabel: UIView {
    /// https://developer.apple.com/documentation/uikit/uilabel/text
    open var text: String?
}

/// https://developer.apple.com/documentation/uikit/uiscrollview
@MainActor
open class UIScrollView: UIView {}

// MARK: Collection view

/// https://developer.apple.com/documentation/uikit/uicollectionreusableview
@MainActor
open class UICollectionReusableView: UIView {
    /// https://developer.apple.com/documentation/uikit/uicollectionreusableview/prepareforreuse()
    open func prepareForReuse() {}
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewcell
@MainActor
open class UICollectionViewCell: UICollectionReusableView {
    /// https://developer.apple.com/documentation/uikit/uicollectionviewcell/contentview
    open var contentView: UIView { UIView(frame: .zero) }
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewlayout
@MainActor
open class UICollectionViewLayout: NSObject {
    public override init() {}
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewflowlayout
@MainActor
open class UICollectionViewFlowLayout: UICollectionViewLayout {}

/// https://developer.apple.com/documentation/uikit/uicollectionview
@MainActor
open class UICollectionView: UIScrollView {
    /// https://developer.apple.com/documentation/uikit/uicollectionview/init(frame:collectionviewlayout:)
    public init(frame: CGRect, collectionViewLayout layout: UICollectionViewLayout) { super.init(frame: frame) }
    public required init?(coder: NSCoder) { super.init(frame: .zero) }
    /// https://developer.apple.com/documentation/uikit/uicollectionview/datasource
    open weak var dataSource: (any UICollectionViewDataSource)?
    /// https://developer.apple.com/documentation/uikit/uicollectionview/delegate
    open weak var delegate: (any UICollectionViewDelegate)?
    /// https://developer.apple.com/documentation/uikit/uicollectionview/register(_:forcellwithreuseidentifier:)-(anyclass?,_)
    open func register(_ cellClass: AnyClass?, forCellWithReuseIdentifier identifier: String) {}
    /// https://developer.apple.com/documentation/uikit/uicollectionview/dequeuereusablecell(withreuseidentifier:for:)
    open func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: IndexPath)
        -> UICollectionViewCell
    { UICollectionViewCell(frame: .zero) }
    /// https://developer.apple.com/documentation/uikit/uicollectionview/performbatchupdates(_:completion:)
    open func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {}
    /// https://developer.apple.com/documentation/uikit/uicollectionview/insertitems(at:)
    open func insertItems(at indexPaths: [IndexPath]) {}
    /// https://developer.apple.com/documentation/uikit/uicollectionview/deleteitems(at:)
    open func deleteItems(at indexPaths: [IndexPath]) {}
    /// https://developer.apple.com/documentation/uikit/uicollectionview/moveitem(at:to:)
    open func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {}
    /// https://developer.apple.com/documentation/uikit/uicollectionview/reloaddata()
    open func reloadData() {}
    /// https://developer.apple.com/documentation/uikit/uicollectionview/indexpathsforvisibleitems
    open var indexPathsForVisibleItems: [IndexPath] { [] }
    /// https://developer.apple.com/documentation/uikit/uicollectionview/cellforitem(at:)
    open func cellForItem(at indexPath: IndexPath) -> UICollectionViewCell? { nil }
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewdatasource
@MainActor
public protocol UICollectionViewDataSource: NSObjectProtocol {
    /// https://developer.apple.com/documentation/uikit/uicollectionviewdatasource/collectionview(_:numberofitemsinsection:)
    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int
    /// https://developer.apple.com/documentation/uikit/uicollectionviewdatasource/collectionview(_:cellforitemat:)
    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath) -> UICollectionViewCell
}

/// https://developer.apple.com/documentation/uikit/uiscrollviewdelegate
@MainActor
public protocol UIScrollViewDelegate: NSObjectProtocol {}

/// https://developer.apple.com/documentation/uikit/uicollectionviewdelegate
///
/// Every method of it is optional (`@objc optional`) in UIKit. Linux has no Objective-C runtime, so none is declared
/// as a requirement here (a requirement with an empty default would accept a near miss, such as a method with the
/// wrong cell type or label, silently). Instead the optional methods are listed in ../optional-requirements.txt with
/// their exact types, and Tools/check-apple.sh checks every method of a conformer named like one against that list.
@MainActor
public protocol UICollectionViewDelegate: UIScrollViewDelegate {}

// MARK: View controller

/// https://developer.apple.com/documentation/uikit/uiviewcontroller
@MainActor
open class UIViewController: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/init(nibname:bundle:)
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) {}
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/init(coder:)
    public required init?(coder: NSCoder) {}
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/view
    open var view: UIView! = nil
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/viewdidload()
    open func viewDidLoad() {}
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/viewdidappear(_:)
    open func viewDidAppear(_ animated: Bool) {}
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/viewwilldisappear(_:)
    open func viewWillDisappear(_ animated: Bool) {}
}

// MARK: Scenes and the app (a draft saved when the app goes to the background: Docs/Drafts.md)

/// https://developer.apple.com/documentation/uikit/uiscene
@MainActor
open class UIScene: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiscene/connectionoptions
    @MainActor
    open class ConnectionOptions: NSObject {}
}

/// https://developer.apple.com/documentation/uikit/uiscenesession
@MainActor
open class UISceneSession: NSObject {}

/// https://developer.apple.com/documentation/uikit/uiscenedelegate
///
/// Its methods are optional: listed in ../optional-requirements.txt, not declared (see UICollectionViewDelegate).
@MainActor
public protocol UISceneDelegate: NSObjectProtocol {}

/// https://developer.apple.com/documentation/uikit/uiwindowscenedelegate
@MainActor
public protocol UIWindowSceneDelegate: UISceneDelegate {}

/// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/invalid
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

/// https://developer.apple.com/documentation/uikit/uiapplication
@MainActor
open class UIApplication: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    open class var shared: UIApplication { UIApplication() }
    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(withname:expirationhandler:)
    /// (not main-actor isolated: `nonisolated`, as beginBackgroundTask(expirationHandler:) is declared)
    nonisolated open func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { .invalid }
    /// https://developer.apple.com/documentation/uikit/uiapplication/endbackgroundtask(_:)
    /// `nonisolated func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier)`
    nonisolated open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
}
