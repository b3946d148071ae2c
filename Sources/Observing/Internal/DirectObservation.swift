import Synchronization

/// An observation of one `@Observed` / `@ObservedArray` property of its object (`\Doc.title`): its storage hands it
/// every change, with the old and new values, in version order (see `CallGate`).
final class DirectObservation<Root: AnyObject, Value>: DirectSubscriber, AnyObservation {
    let info: ObservationInfo
    let gate: CallGate
    /// Held by the gate until the observation ends; called only through the gate, so always there when called.
    private unowned let caller: Caller<Root, Value>
    private weak let storage: PropertyStorage<Value>?
    /// Set by the storage's deinit, on its thread; read by `isActive` on any thread.
    private let storageGone = Atomic<Bool>(false)
    private let onGone: (@Sendable () -> Void)?

    init(
        info: ObservationInfo, caller: Caller<Root, Value>, storage: PropertyStorage<Value>,
        onGone: (@Sendable () -> Void)?
    ) {
        self.info = info
        self.caller = caller
        gate = CallGate(holding: caller)
        self.storage = storage
        self.onGone = onGone
    }

    /// The observed object, through its storage (which holds it weakly).
    var rootObject: AnyObject? { storage?.object }

    var wantsPrior: Bool { info.options.contains(.prior) }

    var isActive: Bool { !gate.hasEnded && !storageGone.load(ordering: .acquiring) && ownerIsAlive }

    /// Subscribes to the storage, files the observation (`file` may refuse it: then it ends and is never called; a
    /// write made meanwhile is parked for the first turn, opened only now), then makes the `.initial` call in that
    /// turn.
    func start(root: Root, _ storage: PropertyStorage<Value>, _ context: ThreadContext, file: () -> Bool) -> Bool {
        var initial: Value?
        let turn = storage.addDirect(self, of: root, initial: info.options.contains(.initial), value: &initial)
        guard file() else {
            end(filed: false)
            return false
        }
        guard let initial else {
            gate.open(at: turn, context)
            return true
        }
        // The initial call is the first turn's delivery; what was parked behind it follows.
        gate.deliver(turn: turn, context) { [self] context in
            let change = ObservedChange(kind: .setting, oldValue: nil, newValue: initial)
            send(root, change, context)
        }
        gate.open(at: turn, context)
        return true
    }

    /// Calls the handler with the changes of `note` in its turn (none when `skip`).
    func receive<Changed>(_ note: Notification<Changed>, from object: AnyObject, _ context: ThreadContext, skip: Bool) {
        // Its storage, of a property of type `Value`, holds only observations of `Value`.
        let note = note as! Notification<Value>
        gate.deliver(turn: note.version, context) { [self] context in
            guard !skip, let root = object as? Root else { return }
            for change in note.changes {
                if note.priors != .none && wantsPrior {
                    send(root, change.prior, context)
                }
                if note.priors != .only { send(root, change, context) }
            }
        }
    }

    /// Calls the handler with `change` (or hands the call to its queue), unless the observation ended.
    private func send(_ root: Root, _ change: ObservedChange<Value>, _ context: ThreadContext) {
        gate.call(context) { caller.callOrHand(root, change.filtered(by: info.options), gate) }
    }

    /// Ends the observation (see `CallGate.end`) and unsubscribes it.
    func end(filed: Bool) {
        guard gate.end() else { return }
        storage?.removeDirect(self)
        if filed { Registry.remove(self) }
    }

    func storageWentAway() {
        storageGone.store(true, ordering: .releasing)
        Registry.remove(self)
        onGone?()
    }
}
