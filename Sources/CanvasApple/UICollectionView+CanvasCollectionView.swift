#if canImport(UIKit) && canImport(AVFoundation)
    import CanvasKit
    import Foundation
    import UIKit

    /// `UICollectionView` as CanvasKit's collection view: UIKit has every requirement but `setAdapter(_:)`, which makes an
    /// object forwarding UIKit's data-source and delegate calls the collection view's `dataSource` and `delegate`.
    extension UICollectionView: CanvasCollectionView {
        /// Makes `adapter` the data source and delegate through a forwarding object, which it returns: UIKit holds its
        /// data source and delegate weakly, so the caller (the screen adapter) keeps it.
        public func setAdapter(_ adapter: (any CanvasCollectionViewAdapter<UICollectionViewCell>)?) -> AnyObject? {
            guard let adapter else {
                dataSource = nil
                delegate = nil
                return nil
            }
            let forwarder = CollectionViewForwarder(adapter: adapter)
            dataSource = forwarder
            delegate = forwarder
            return forwarder
        }
    }

    /// UIKit's data source and delegate calls, forwarded to the screen adapter's calls of the same names.
    @MainActor
    final class CollectionViewForwarder: NSObject, UICollectionViewDataSource, UICollectionViewDelegate {
        private weak var adapter: (any CanvasCollectionViewAdapter<UICollectionViewCell>)?

        init(adapter: any CanvasCollectionViewAdapter<UICollectionViewCell>) {
            self.adapter = adapter
        }

        func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int {
            adapter?.numberOfItems(inSection: section) ?? 0
        }

        func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath)
            -> UICollectionViewCell
        {
            guard let adapter else {
                preconditionFailure("CanvasApple: a cell was asked of a collection view whose adapter is gone")
            }
            return adapter.cellForItem(at: indexPath)
        }

        func collectionView(
            _ collectionView: UICollectionView, willDisplay cell: UICollectionViewCell, forItemAt indexPath: IndexPath
        ) {
            adapter?.willDisplay(cell, forItemAt: indexPath)
        }

        func collectionView(
            _ collectionView: UICollectionView, didEndDisplaying cell: UICollectionViewCell,
            forItemAt indexPath: IndexPath
        ) {
            adapter?.didEndDisplaying(cell, forItemAt: indexPath)
        }

        func collectionView(_ collectionView: UICollectionView, didSelectItemAt indexPath: IndexPath) {
            adapter?.didSelectItem(at: indexPath)
        }
    }
#endif
