import Synchronization

/// An observation of a key path that is not one property of its object: a chain (`\.document?.title`) or a computed
/// property. It follows every `@Observed` storage its evaluation read (its links); when one is written it evaluates the
/// key path again, follows what that evaluation read (re-targeting, O4), and calls the handler when the value changed
/// (values that are not `Equatable` always count as changed).
///
/// Evaluations and calls hold the gate's call lock, one thread at a time: a write made meanwhile on another thread
/// waits for it, then evaluates again, so the last value reported is the path's value after the last write, and each
/// call's old value is the previous call's new value (O11). Changes that land before an evaluation are reported
/// together by it. An evaluation reads the root on the thread that wrote a link, so a root not known to be `Sendable`
/// follows no object known to be, which other threads may write (see `retarget`).
final class ChainObservation<Root: AnyObject, Value>: ChainTarget, AnyObservation {
    let info: ObservationInfo
    private let keyPath: KeyPath<Root, Value> & Sendable
    /// The observed object, weakly.
    private let root: Guarded<WeakSlot>
    /// Whether the root is known to be `Sendable`: observed through a call that requires it.
    private let rootIsSendable: Bool
    /// Set once a read not followed was reported.
    private let reportedUnfollowed = Atomic<Bool>(false)
    let gate: CallGate
    /// Held by the gate until the observation ends; called only through the gate, so always there when called.
    private unowned let caller: Caller<Root, Value>
    /// The value last reported (the first evaluation's, from the start).
    private let last: Guarded<Value>
    /// The storages followed. Not generic, so that following and dropping them runs code compiled once.
    private let links = Guarded<[ChainLink]>([])
    /// Set once, by the first link's deinit that finds the root gone; read by `isActive` on any thread.
    private let rootGone = Atomic<Bool>(false)
    private let onGone: (@Sendable () -> Void)?

    init(
        info: ObservationInfo, keyPath: KeyPath<Root, Value> & Sendable, caller: Caller<Root, Value>, root: Root,
        value: Value, rootIsSendable: Bool, onGone: (@Sendable () -> Void)?
    ) {
        self.info = info
        last = Guarded(value)
        self.keyPath = keyPath
        self.root = Guarded(WeakSlot(object: root))
        self.rootIsSendable = rootIsSendable
        self.caller = caller
        gate = CallGate(holding: caller)
        self.onGone = onGone
    }

    var rootObject: AnyObject? { root.with { $0.object } }

    var isActive: Bool {
        !gate.hasEnded && !rootGone.load(ordering: .acquiring) && rootObject != nil && ownerIsAlive
    }

    /// Follows the first evaluation's reads, files the observation (`file` may refuse it), makes the `.initial` call,
    /// then evaluates again if a link was written in between.
    func start(root: Root, value: Value, reads: [TrackedRead], _ context: ThreadContext, file: () -> Bool) -> Bool {
        var started = true
        gate.call(context) {
            let stale = retarget(reads, of: root)
            guard file() else {
                started = false
                end()
                return
            }
            if info.options.contains(.initial) {
                send(root, old: nil, new: value)
            }
            if stale { evaluateAndSend(context) }
        }
        // A key path that reads no `@Observed` property can never change: a sequence of its changes ends here.
        if started && reads.isEmpty { onGone?() }
        return started
    }

    func linkChanged(_ context: ThreadContext, skip: Bool) {
        guard !skip else { return }
        gate.call(context) { evaluateAndSend(context) }
    }

    /// Evaluates the key path, follows its reads and reports a changed value; again while a link was written between a
    /// read and its subscription. Runs holding the call lock.
    private func evaluateAndSend(_ context: ThreadContext) {
        var stale = true
        while stale && !gate.hasEnded {
            guard let root = rootObject as? Root else { return }
            var reads: [TrackedRead] = []
            let value = context.record(&reads) { root[keyPath: keyPath] }
            stale = retarget(reads, of: root)
            let old = last.with { last in
                defer { last = value }
                return last
            }
            if areEqual(old, value) == true { continue }
            if info.options.contains(.prior) {
                send(root, old: old, new: nil, isPrior: true)
            }
            send(root, old: old, new: value)
        }
    }

    /// Calls the handler with the change from `old` to `new`, keeping the values the options ask for (the call lock is
    /// held), or hands the call on, unless it ended (maybe in this change's prior).
    private func send(_ root: Root, old: Value?, new: Value?, isPrior: Bool = false) {
        guard !gate.hasEnded else { return }
        let change = ObservedChange(
            kind: .setting, oldValue: old, newValue: new, isPrior: isPrior, keeping: info.options)
        caller.callOrHand(root, change, gate)
    }

    /// Follows the storages `reads` went through; returns whether one was written since it was read. From a root not
    /// known to be `Sendable`, a read of an object known to be (`TrackedRead.shared`) is not followed, and reported once;
    /// a root read through the subscript that requires `Sendable` is known to be.
    private func retarget(_ reads: [TrackedRead], of root: Root) -> Bool {
        let current = links.with { $0 }
        var kept: [ChainLink] = []
        kept.reserveCapacity(reads.count)
        var stale = false
        let sendable = rootIsSendable || reads.contains { $0.shared && $0.object === root }
        // By index: a read or a link taken out of its array is a copy, a retain of each object it holds.
        for index in reads.indices where sendable || !reads[index].shared {
            let storage = reads[index].storage
            let id = ObjectIdentifier(storage)
            if kept.contains(where: { $0.id == id }) { continue }
            let followed = current.contains { $0.id == id && $0.storage != nil }
            if !followed && !storage.addLink(self, since: reads[index].writes) { stale = true }
            kept.append(ChainLink(storage: storage, id: id))
        }
        for index in current.indices where !kept.contains(where: { $0.id == current[index].id }) {
            current[index].storage?.removeLink(self)
        }
        links.with { $0 = kept }
        if gate.hasEnded { removeLinks() }
        if !sendable && reads.contains(where: \.shared) && !reportedUnfollowed.exchange(true, ordering: .relaxed) {
            let rootType = String(reflecting: Root.self)
            ObservationDiagnostics.report(.sharedObjectNotFollowed(objectType: rootType, keyPath: "\(keyPath)"))
        }
        return stale
    }

    private func removeLinks() {
        let dropped = links.with { links in
            defer { links = [] }
            return links
        }
        for index in dropped.indices { dropped[index].storage?.removeLink(self) }
    }

    func end(filed: Bool) {
        guard gate.end() else { return }
        removeLinks()
        if filed { Registry.remove(self) }
    }

    func linkWentAway() {
        guard rootObject == nil, !rootGone.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Registry.remove(self)
        onGone?()
    }
}

/// A storage a chain follows, held weakly (a chain keeps no object alive), with its identity.
private struct ChainLink {
    weak var storage: (any LinkableStorage)?
    let id: ObjectIdentifier
}
