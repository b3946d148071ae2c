import Foundation

/// The data protection a draft's files are created with on Apple platforms (`DraftOptions.protection`): when the
/// system lets the app read and write them while the device is locked. A storage without data protection (Linux)
/// ignores it.
public enum DraftProtection: Sendable, Hashable, CaseIterable {
    /// Readable and writable from the user's first unlock after the device started, also while it is locked again
    /// (`FileProtectionType.completeUntilFirstUserAuthentication`, iOS's default for an app's files). What a draft
    /// needs: its writes and compactions happen in the background, while the device may be locked. The default.
    case completeUntilFirstUserAuthentication
    /// Readable and writable only while the device is unlocked (`FileProtectionType.complete`): a write while it is
    /// locked fails (reported as the draft's failure, and the draft rewritten once it is unlocked).
    case complete
    /// Like ``complete``, except that a file open when the device locks stays writable
    /// (`FileProtectionType.completeUnlessOpen`); a compaction while locked still fails (it creates new files).
    case completeUnlessOpen
    /// No protection (`FileProtectionType.none`).
    case none
}

extension DraftStorage {
    /// Does nothing: a storage without data protection keeps no protection.
    public func protect(_ path: String, _ protection: DraftProtection) throws(DraftError) {}
}

#if canImport(Darwin)
    extension DraftProtection {
        /// Foundation's protection class for this protection.
        var fileProtectionType: FileProtectionType {
            switch self {
            case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
            case .complete: .complete
            case .completeUnlessOpen: .completeUnlessOpen
            case .none: .none
            }
        }
    }
#endif

extension FileDraftStorage {
    /// Sets the file's protection class on Apple platforms (`FileManager`'s `protectionKey` attribute); nothing
    /// elsewhere. - Throws: ``DraftError/io(path:operation:errno:)`` when the system refuses it.
    public func protect(_ path: String, _ protection: DraftProtection) throws(DraftError) {
        #if canImport(Darwin)
            do {
                try FileManager.default.setAttributes(
                    [.protectionKey: protection.fileProtectionType], ofItemAtPath: path)
            } catch {
                let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? Int(EPERM)
                throw .io(path: path, operation: "protect", errno: Int32(code))
            }
        #endif
    }
}
