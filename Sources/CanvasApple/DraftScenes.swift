#if canImport(UIKit) && canImport(AVFoundation)
    import CanvasKit
    import Foundation
    import UIKit

    /// Drafts on the scene lifecycle: one board, opened on its draft once, shared by every scene of the app; when a scene
    /// goes to the background, the app keeps running until the draft is on disk (a background task whose expiration
    /// handler ends it, so the system never kills the app for overrunning); when the last scene disconnects, the
    /// draft is closed (made durable, its lock released) and the next scene to connect opens it again.
    ///
    /// An app's scene delegate gets the board from ``board(draftAt:newBoard:)`` in `scene(_:willConnectTo:options:)`
    /// (every scene gets the same one) and calls ``sceneDidEnterBackground()`` and ``sceneDidDisconnect()``; or it
    /// subclasses ``CanvasSceneDelegate``, which does all three.
    @MainActor
    public final class DraftScenes {
        /// The app's one instance.
        public static let shared = DraftScenes()

        /// The board every scene shows, once opened.
        public private(set) var board: CanvasBoard?
        /// The background tasks begun and not ended yet, by the number of the call that began each.
        private var backgroundTasks: [Int: UIBackgroundTaskIdentifier] = [:]
        private var nextTask = 0
        /// The last error that kept the draft from becoming durable in the background, if any.
        public private(set) var durabilityError: DraftError?
        /// Why the draft asked for could not be opened, when the board journals to a new draft beside it instead
        /// (`CanvasBoard.openingDraft(at:newBoard:options:)`); nil when it was opened.
        public private(set) var openingFailure: DraftError?
        /// The scenes connected (each asked for the board once).
        private var scenes = 0

        private init() {}

        /// The board on the draft at `url` for a connecting scene (call it once per scene): opened the first time
        /// (restored from the draft, or `newBoard` when there is none); later calls, from any scene, return the same
        /// board.
        ///
        /// The folder holding `url` is created when missing (an app's Application Support folder does not exist on
        /// a fresh install, and a draft is never opened in a missing folder).
        ///
        /// A draft that cannot be read or restored, or that another opener holds, is left as it was: the board
        /// journals to a new draft beside it (``openingFailure`` says why), never to nothing.
        ///
        /// - Throws: `DraftError` when the folder cannot be created (`io`, operation "create folder") or the new
        ///   draft cannot be opened either.
        public func board(draftAt url: URL, newBoard: @autoclosure () -> BoardState) throws(DraftError) -> CanvasBoard {
            let shown: CanvasBoard
            if let board {
                shown = board
            } else {
                try Self.createFolder(of: url)
                // A draft that cannot be opened is left for support and a new one beside it journals the session.
                let opened = try CanvasBoard.openingDraft(at: url, newBoard: newBoard())
                openingFailure = opened.failure
                shown = opened.board
                board = shown
            }
            scenes += 1
            return shown
        }

        /// A scene disconnected: after the last one, the draft is closed (its records made durable, its lock
        /// released) and the board dropped, so the next scene opens the draft again.
        public func sceneDidDisconnect() {
            scenes = max(scenes - 1, 0)
            guard scenes == 0, let draft = board?.draft else { return }
            board = nil
            Task {
                try? await draft.close()  // a failed write is the draft's progress.failure; the lock is released anyway
            }
        }

        /// Keeps the app running until the draft is durable, in a background task of its own for every call: the
        /// task ends when the records appended before the call are durable, or when the system's time runs out (its
        /// expiration handler), whichever comes first; each call ends only the task it began. A write that fails is
        /// kept in ``durabilityError`` (it is also the draft's `progress.failure`).
        public func sceneDidEnterBackground() {
            guard let draft = board?.draft else { return }
            nextTask += 1
            let serial = nextTask
            let task = UIApplication.shared.beginBackgroundTask(withName: "Saving the draft") { [weak self] in
                // Out of time: what is not synced yet is what a kill now can lose (Docs/Drafts.md).
                self?.endTask(serial)
            }
            guard task != .invalid else { return }
            // The expiration handler runs on the main actor, so not before the identifier is kept here.
            backgroundTasks[serial] = task
            Task {
                do throws(DraftError) {
                    try await draft.waitUntilDurable()
                } catch {
                    durabilityError = error
                }
                endTask(serial)
            }
        }

        /// Ends the background task begun by call `serial`, unless it ended already (the draft became durable, or its
        /// expiration handler ran).
        private func endTask(_ serial: Int) {
            guard let task = backgroundTasks.removeValue(forKey: serial) else { return }
            UIApplication.shared.endBackgroundTask(task)
        }

        /// Creates the folder holding `url` when missing.
        private static func createFolder(of url: URL) throws(DraftError) {
            let folder = url.deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
                throw .io(path: folder.path, operation: "create folder", errno: Int32(posix?.code ?? Int(EIO)))
            }
        }
    }

    /// A scene delegate that opens the shared draft board when a scene connects (``draftURL``, ``newBoard``) and keeps
    /// the draft safe when a scene goes to the background. Subclass it to build the scene's window around ``board``.
    @MainActor
    open class CanvasSceneDelegate: UIResponder, UIWindowSceneDelegate {
        /// The board of the app's scenes (nil until a scene connected, or when the draft could not be opened).
        public var board: CanvasBoard? { DraftScenes.shared.board }
        /// Why the draft could not be opened, if it could not.
        public private(set) var draftError: DraftError?

        /// Where the draft lives; by default `board.draft` in the app's Application Support folder.
        open var draftURL: URL {
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
                .appendingPathComponent("board.draft")
        }

        /// The board a first launch starts with; by default 4 empty canvases.
        open var newBoard: BoardState { BoardState(canvasCount: 4) }

        /// Opens the shared board (once for all scenes). A subclass that overrides it must call `super`, or the board
        /// is never opened.
        open func scene(
            _ scene: UIScene, willConnectTo session: UISceneSession,
            options connectionOptions: UIScene.ConnectionOptions
        ) {
            do {
                _ = try DraftScenes.shared.board(draftAt: draftURL, newBoard: newBoard)
            } catch {
                draftError = error
            }
        }

        /// Keeps the draft safe while the app goes to the background.
        open func sceneDidEnterBackground(_ scene: UIScene) {
            DraftScenes.shared.sceneDidEnterBackground()
        }

        /// Closes the draft after the app's last scene.
        open func sceneDidDisconnect(_ scene: UIScene) {
            if draftError == nil { DraftScenes.shared.sceneDidDisconnect() }
        }
    }
#endif
