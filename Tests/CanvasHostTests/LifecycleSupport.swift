import CanvasHost
import CanvasKit
import Dispatch
import Foundation
import Locking
import Observing
import SeededRandom

/// Weak references to every model a board ever had, to audit observations on them.
final class ModelRegistry {
    private struct Entry {
        weak var model: CanvasModel?
    }

    private var entries: [ObjectIdentifier: Entry] = [:]

    func note(_ models: [CanvasModel]) {
        for model in models { entries[ObjectIdentifier(model)] = Entry(model: model) }
    }

    /// The identities of the models still alive.
    var aliveIdentifiers: Set<ObjectIdentifier> {
        Set(entries.compactMap { $0.value.model.map(ObjectIdentifier.init) })
    }
}

/// What a screen under test exposes to the audit: ours (`CanvasScreen`) or a naive one from the pitfall tests.
@MainActor
protocol LifecycleSubject: AnyObject {
    var board: CanvasBoard { get }
    var log: RegistrationLog { get }
    var reloads: Int { get }
    var isOnScreen: Bool { get }
    /// The visible cells: index and what each one shows.
    var shownDisplays: [(index: Int, shown: CanvasDisplay?)] { get }
    /// How many cells are displayed (between willDisplay and didEndDisplaying), visible or not.
    var displayedCount: Int { get }
    /// How many model keys a displayed cell observes.
    var keysPerCell: Int { get }
    func appear()
    func disappear()
    func scroll(toOffset offset: Int)
}

extension CanvasScreen: LifecycleSubject {
    var log: RegistrationLog { binder.log }
    var reloads: Int { reloadCount }
    var keysPerCell: Int { CanvasCellViewModel.modelKeyPaths.count }
    var isOnScreen: Bool { host.isOnScreen }
    var shownDisplays: [(index: Int, shown: CanvasDisplay?)] {
        visibleCells.map { ($0.index, $0.cell.shownDisplay) }
    }
    var displayedCount: Int { host.displayedCells.count }
    func appear() { screenDidAppear() }
    func disappear() { screenWillDisappear() }
}

/// Lets the main queue run what other threads queued for it (the main-actor deliveries of their changes, which the
/// cells draw), a few rounds, since a delivery may queue the next one.
@MainActor
func drainMainQueue() async {
    for _ in 0..<4 {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { done.resume() }
        }
    }
}

/// One step of a lifecycle sequence.
enum LifecycleStep: CustomStringConvertible {
    case event(CanvasEvent)
    case scroll(Int)
    case disappear
    case appear

    var description: String {
        switch self {
        case .event(let event): "\(event)"
        case .scroll(let offset): "scroll \(offset)"
        case .disappear: "disappear"
        case .appear: "appear"
        }
    }

    /// A random step for a board of `count` canvases; indexes may be out of range on purpose (rejections).
    static func randomStep(count: Int, serial: Int, using random: inout SplitMix64) -> LifecycleStep {
        let index = Int.random(in: 0...count, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<22: return .scroll(Int.random(in: -1...count, using: &random))
        case 22..<44: return .event(.tap(index))
        case 44..<52: return .event(.record)
        case 52..<62: return .event(.stop(URL(fileURLWithPath: "/takes/take\(serial).mov")))
        case 62..<65: return .event(.cancel)
        case 65..<69: return .event(.delete(index))
        case 69..<77: return .event(.add)
        case 77..<84: return .event(.remove(index))
        case 84..<92: return .disappear
        default: return .appear
        }
    }

    /// `count` random steps from `seed`, for a board that starts with `canvasCount` canvases.
    static func sequence(seed: UInt64, canvasCount: Int, count: Int) -> [LifecycleStep] {
        var random = SplitMix64(seed: seed)
        var size = canvasCount
        var steps: [LifecycleStep] = []
        for serial in 0..<count {
            let step = randomStep(count: size, serial: serial, using: &random)
            // Track the size loosely so indexes stay mostly meaningful; rejected events are fine.
            if case .event(.add) = step { size += 1 }
            if case .event(.remove) = step, size > 1 { size -= 1 }
            steps.append(step)
        }
        return steps
    }
}

@MainActor
extension LifecycleSubject {
    func perform(_ step: LifecycleStep) {
        switch step {
        case .event(let event): _ = board.send(event)
        case .scroll(let offset): scroll(toOffset: offset)
        case .disappear: disappear()
        case .appear: appear()
        }
    }

    /// Everything wrong with the subject now, as readable lines (empty when the audit passes):
    /// - the log's violations (a key registered twice, a removal without a registration);
    /// - a model observed twice for one key path, according to Observing's own diagnostics;
    /// - any live registration while the screen is away;
    /// - more live model registrations than displayed cells x the keys a cell observes;
    /// - a visible cell (screen on screen) not showing the display derived from its model;
    /// - any reload.
    func auditProblems(models: ModelRegistry) -> [String] {
        var problems = log.violations.map(\.description)
        models.note(board.canvases)
        let alive = models.aliveIdentifiers
        var perKey: [String: Int] = [:]
        var modelObservations = 0
        for record in ObservationDiagnostics.liveObservations() where alive.contains(record.objectIdentifier) {
            perKey["\(record.objectIdentifier) \(record.keyPath)", default: 0] += 1
            modelObservations += 1
        }
        for (key, count) in perKey where count > 1 {
            problems.append("model observed \(count) times: \(key)")
        }
        if !isOnScreen {
            if log.liveCount != 0 { problems.append("\(log.liveCount) registrations while the screen is away") }
            if modelObservations != 0 { problems.append("\(modelObservations) model observations while away") }
        } else {
            if modelObservations > displayedCount * keysPerCell {
                problems.append("\(modelObservations) model observations for \(displayedCount) displayed cells")
            }
            let canvases = board.canvases
            let isRecording = board.isRecording
            for (index, shown) in shownDisplays {
                guard index < canvases.count else {
                    problems.append("visible cell at \(index) beyond \(canvases.count) canvases")
                    continue
                }
                let expected = canvases[index].display(boardIsRecording: isRecording)
                if shown != expected {
                    problems.append(
                        "cell \(index) shows \(shown.map(\.description) ?? "nothing"), model says \(expected)")
                }
            }
        }
        if reloads != 0 { problems.append("\(reloads) reloads") }
        return problems
    }

    /// Runs `steps` (appearing first) and audits once, at the end.
    func runAuditingAtEnd(_ steps: [LifecycleStep]) -> [String] {
        appear()
        for step in steps { perform(step) }
        return auditProblems(models: ModelRegistry())
    }

    /// Runs `steps` (appearing first), auditing after each; returns the first problems found with their step.
    func run(_ steps: [LifecycleStep]) -> (step: Int, description: String, problems: [String])? {
        let models = ModelRegistry()
        appear()
        for (number, step) in steps.enumerated() {
            perform(step)
            let problems = auditProblems(models: models)
            if !problems.isEmpty { return (number, step.description, problems) }
        }
        return nil
    }
}
