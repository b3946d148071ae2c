#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import Foundation
    import UIKit

    /// A cell base class for the canvas screen: the screen adapter tells it what to show (`CanvasScreenCell`), and it
    /// shows it: the live preview (hosting the capture performer's preview layer when the adapter says so), the recording
    /// indicator, the take's cover, the take playing while another canvas records, the add button, or a warning mark for a
    /// take whose file is missing (until the app relinks it or confirms its removal), with a border when
    /// highlighted; and, for a canvas with a take, a caption with its segment count and length, and a confirmation mark
    /// while its undo is armed (a second undo of the canvas removes the last segment). Subclass it to change the look (override a `draw` and call `super`), or use it as it is:
    ///
    /// ```swift
    /// let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: CanvasCollectionCell.self)
    /// ```
    ///
    /// The camera and the players are the ``stage``'s: set it once to the app's `CapturePerformer` (one camera per app).
    @MainActor
    open class CanvasCollectionCell: UICollectionViewCell, CanvasScreenCell {
        /// The capture performer whose preview layer and players the cells show.
        public static weak var stage: CapturePerformer?

        /// Shows the take's cover.
        public let coverView = UIImageView(image: nil)
        /// Shows the add button of a canvas without a take.
        public let addButtonView = UIImageView(image: UIImage(systemName: "plus.circle"))
        /// Shows that the canvas records.
        public let recordingView = UIImageView(image: UIImage(systemName: "record.circle"))
        /// Shows the take's segment count and length, e.g. `2 segments, 3.5s` (hidden without a take).
        public let takeLabel = UILabel(frame: .zero)
        /// Shows that the canvas's undo is armed: the next undo removes the take's last segment.
        public let undoArmedView = UIImageView(image: UIImage(systemName: "trash.circle.fill"))
        /// Shows that the take's file is missing (found so at a restore): the app relinks it or confirms its removal.
        public let missingView = UIImageView(image: UIImage(systemName: "exclamationmark.triangle"))
        private var playerLayer: AVPlayerLayer?
        private var hostsPreview = false

        /// A cell with its cover, add button and recording indicator views (hidden until it draws a display).
        public override init(frame: CGRect) {
            super.init(frame: frame)
            addContentViews()
        }

        /// A cell from a storyboard or nib, with the same views.
        public required init?(coder: NSCoder) {
            super.init(coder: coder)
            addContentViews()
        }

        private func addContentViews() {
            for view in [coverView, addButtonView, recordingView, missingView, takeLabel, undoArmedView] {
                view.isHidden = true
                contentView.addSubview(view)
            }
        }

        /// Shows what the canvas shows (nil: nothing, the cell is being reused).
        open func draw(_ display: CanvasDisplay?) {
            coverView.isHidden = display?.kind != .cover
            addButtonView.isHidden = display?.kind != .addButton
            recordingView.isHidden = display?.kind != .recording
            missingView.isHidden = display?.kind != .missing
            let take = display?.take
            takeLabel.text = take?.description
            takeLabel.isHidden = take == nil
            undoArmedView.isHidden = take?.isUndoArmed != true
            contentView.layer.borderWidth = display?.isHighlighted == true ? 3 : 0
            playerLayer?.removeFromSuperlayer()
            playerLayer = nil
            if case .playback(let url)? = display?.picture, let player = Self.stage?.players.player(playing: url) {
                let layer = AVPlayerLayer(player: player)
                layer.videoGravity = .resizeAspectFill
                layer.frame = contentView.bounds
                contentView.layer.insertSublayer(layer, at: 0)
                playerLayer = layer
            }
        }

        /// Shows the take's cover once loaded (nil: none yet).
        open func draw(_ cover: CoverImage?) {
            coverView.image = cover?.cgImage.map { UIImage(cgImage: $0) }
        }

        /// Puts the live preview into this cell, or takes it out (only if it is still here: another cell may have it).
        open func setHostsPreview(_ hostsPreview: Bool) {
            self.hostsPreview = hostsPreview
            guard let preview = Self.stage?.previewLayer else { return }
            if hostsPreview {
                preview.frame = contentView.bounds
                contentView.layer.insertSublayer(preview, at: 0)
            } else if preview.superlayer === contentView.layer {
                preview.removeFromSuperlayer()
            }
        }

        open override func layoutSubviews() {
            super.layoutSubviews()
            let bounds = contentView.bounds
            coverView.frame = bounds
            playerLayer?.frame = bounds
            if hostsPreview { Self.stage?.previewLayer.frame = bounds }
            let side = min(bounds.width, bounds.height) / 3
            let middle = CGRect(x: bounds.midX - side / 2, y: bounds.midY - side / 2, width: side, height: side)
            addButtonView.frame = middle
            missingView.frame = middle
            recordingView.frame = CGRect(x: 8, y: 8, width: 24, height: 24)
            undoArmedView.frame = CGRect(x: bounds.maxX - 32, y: 8, width: 24, height: 24)
            takeLabel.frame = CGRect(x: 8, y: bounds.maxY - 24, width: bounds.width - 16, height: 18)
        }
    }
#endif
