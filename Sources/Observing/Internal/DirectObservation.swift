import Synchronization

/// An observation of one `@Observed` / `@ObservedArray` property of its object (`\Doc.title`): its storage hands it
/// every change, with the old and new values, in version order (see `CallGate`).
final class DirectObservation<Root: AnyObject, Value>: DirectSubscriber, AnyObservation {
    let info: ObservationInfo
    let propertyKeyPath: SharedKeyPath?
    private let dispatch: (@Sendable (Root, ObservedChange<Value>, Caller<Root, Value>.Gate, ObjectIdentifier) -> Bool)?
    private let gate: Caller<Root, Value>.Gate
    private weak let storage: PropertyStorage<Value>?
    private let storageGone = Atomic<Bool>(false)
    private let onGone: (@Sendable () -> Void)?

    init(
        info: ObservationInfo, property: SharedKeyPath, caller: Caller<Root, Value>, storage: PropertyStorage<Value>,
        onGone: (@Sendable () -> Void)?
    ) {
        self.info = info
        propertyKeyPath = property
        gate = CallGate(caller)
        dispatch = caller.dispatch
        self.storage = storage
        self.onGone = onGone
    }

    @usableFromInline
    var wantsPrior: Bool { info.options.contains(.prior) }

    var isActive: Bool {
        !gate.hasEnded && !storageGone.load(ordering: .acquiring) && info.owner.map { $0.link.object != nil } != false
    }

    /// Subscribes to the storage, files the observation (`file` may refuse it: then it ends), then makes the
    /// `.initial` call in the first turn.
    func start(root: Root, _ context: ThreadContext, file: () -> Bool) -> Bool {
        guard let storage else { return false }
        let (turn, initial) = storage.addDirect(self, initial: info.options.contains(.initial))
        gate.start(at: turn)
        guard file() else {
            end()
            return false
        }
        if let initial, gate.waitForTurn(turn, context) {
            let change = ObservedChange(kind: .setting, oldValue: nil, newValue: initial).filtered(by: info.options)
            call(root, change, context)
            gate.finishTurn(turn)
        }
        return true
    }

    @usableFromInline
    func receive(_ notification: Notification<Value>, from object: AnyObject, _ context: ThreadContext, skip: Bool) {
        guard gate.waitForTurn(notification.version, context) else { return }
        defer { gate.finishTurn(notification.version) }
        guard !skip, let root = object as? Root else { return }
        notification.each { change in
            if !change.isPrior || wantsPrior {
                call(root, change.filtered(by: info.options), context)
            }
        }
    }

    private func call(_ root: Root, _ change: ObservedChange<Value>, _ context: ThreadContext) {
        if dispatch?(root, change, gate, id) != true {
            gate.call(id, context) { $0.handler(root, change) }
        }
    }

    func end() {
        guard gate.end(id) else { return }
        storage?.removeDirect(self)
        Registry.remove(self)
    }

    @usableFromInline
    func storageWentAway() {
        storageGone.store(true, ordering: .releasing)
        Registry.remove(self)
        onGone?()
    }
}
