import Synchronization

/// An observation of one `@Observed` / `@ObservedArray` property of its object (`\Doc.title`): its storage hands it
/// every change, with the old and new values, in version order (see `CallGate`).
@usableFromInline
final class DirectObservation<Root: AnyObject, Value>: DirectSubscriber, AnyObservation {
    @usableFromInline let info: ObservationInfo
    @usableFromInline let dispatch: Caller<Root, Value>.Dispatch?
    @usableFromInline let gate: CallGate
    /// `deliver`, specialized where the observation was made (see `Caller.receive`).
    @usableFromInline let receiver: Caller<Root, Value>.Receive
    /// `finishEnd`, specialized where the observation was made.
    @usableFromInline let ender: Caller<Root, Value>.End
    @usableFromInline weak let storage: PropertyStorage<Value>?
    @usableFromInline let storageGone = Atomic<Bool>(false)
    @usableFromInline let onGone: (@Sendable () -> Void)?
    @usableFromInline
    func withGate<Result>(_ body: (borrowing CallGate) -> Result) -> Result { body(gate) }

    @inlinable
    init(
        info: ObservationInfo, caller: Caller<Root, Value>, storage: PropertyStorage<Value>,
        onGone: (@Sendable () -> Void)?
    ) {
        self.info = info
        dispatch = caller.dispatch
        receiver = caller.receive
        ender = caller.end
        gate = CallGate(caller)
        self.storage = storage
        self.onGone = onGone
    }

    /// The observed object, through its storage (which holds it weakly): the observation keeps no weak reference.
    @usableFromInline
    var rootObject: AnyObject? {
        storage?.object
    }

    @inlinable
    var wantsPrior: Bool { info.options.contains(.prior) }

    @usableFromInline
    var isActive: Bool {
        !gate.hasEnded && !storageGone.load(ordering: .acquiring) && info.owner.map { $0.link.object != nil } != false
    }

    /// Subscribes to the storage, files the observation (`file` may refuse it: then it ends and is never called: a
    /// write made meanwhile waits for the first turn, opened only now), then makes the `.initial` call in that turn.
    @inlinable
    func start(root: Root, _ context: ThreadContext, file: () -> Bool) -> Bool {
        guard let storage else { return false }
        let (turn, initial) = storage.addDirect(self, of: root, initial: info.options.contains(.initial))
        guard file() else {
            end(filed: false)
            return false
        }
        // The first turn, known only now; wakes a write made meanwhile that already waits for it.
        gate.advance(to: turn)
        if let initial, gate.waitForTurn(turn, context) {
            let change = ObservedChange(kind: .setting, oldValue: nil, newValue: initial).filtered(by: info.options)
            call(root, change, context)
            gate.advance(to: turn &+ 1)
        }
        return true
    }

    @usableFromInline
    func receive(_ note: borrowing Notification<Value>, from object: AnyObject, _ context: ThreadContext, skip: Bool) {
        receiver(self, note, object, context, skip)
    }

    /// Calls the handler with the changes of `note` in its turn (none when `skip`).
    @inlinable
    func deliver(_ note: borrowing Notification<Value>, from object: AnyObject, _ context: ThreadContext, skip: Bool) {
        guard gate.waitForTurn(note.version, context) else { return }
        defer { gate.advance(to: note.version &+ 1) }
        guard !skip, let root = object as? Root else { return }
        note.each { change in
            if !change.isPrior || wantsPrior {
                call(root, change.filtered(by: info.options), context)
            }
        }
    }

    @inlinable
    func call(_ root: Root, _ change: ObservedChange<Value>, _ context: ThreadContext) {
        if dispatch?(root, change, self) != true {
            gate.call(context) { (caller: Caller<Root, Value>) in caller.handler(root, change) }
        }
    }

    @usableFromInline
    func end(filed: Bool) {
        ender(self, filed)
    }

    /// Ends the observation (see `CallGate.end`) and unsubscribes it.
    @inlinable
    func finishEnd(filed: Bool) {
        guard gate.end() else { return }
        storage?.removeDirect(self)
        if filed { unfile(self) }
    }

    @usableFromInline
    func storageWentAway() {
        storageGone.store(true, ordering: .releasing)
        Registry.remove(self)
        onGone?()
    }
}
