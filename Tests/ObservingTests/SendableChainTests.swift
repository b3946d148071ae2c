import Foundation
import Observing
import Testing

/// A page threads share: `Sendable`, its storage in a `let`.
private final class SharedPage: KeyValueObservable, Sendable {
    private let _title = Observed(wrappedValue: "")

    var title: String {
        get { _title[self, \.title] }
        set { _title[self, \.title] = newValue }
    }
}

/// A desk of one thread (not `Sendable`) holding a shared page.
private final class Desk: KeyValueObservable {
    @Observed var page: SharedPage?
}

/// A desk of one thread that only the report test observes: its reports cannot come from the other tests, which run
/// meanwhile and report `Desk`.
private final class ReportedDesk: KeyValueObservable {
    @Observed var page: SharedPage?
}

/// A desk threads share.
private final class SharedDesk: KeyValueObservable, Sendable {
    private let _page = Observed<SharedPage?>(wrappedValue: nil)

    var page: SharedPage? {
        get { _page[self, \.page] }
        set { _page[self, \.page] = newValue }
    }
}

/// A `Sendable` shelf whose page is a plain `let`: a chain from it reads none of its own storage.
private final class Shelf: KeyValueObservable, Sendable {
    let page = SharedPage()
}

/// Observes `keyPath` of `object` where its type is not known to be `Sendable`; each call appends "unknown".
private func observeUnknown<Object: KeyValueObservable, Value>(
    _ object: Object, _ keyPath: KeyPath<Object, Value> & Sendable, into seen: Recorder<String>
) -> ObservationToken {
    object.observe(keyPath, options: [.new]) { _, _ in seen.append("unknown") }
}

@Suite("A chain through a Sendable object: followed from a Sendable root only")
struct SendableChainTests {
    @Test func aChainFromARootThatIsNotSendableIsNeverEvaluatedOnTheThreadOfASharedObject() async {
        let desk = Desk()
        let page = SharedPage()
        let seen = Recorder<String>()
        let token = desk.observe(\.page?.title, options: [.new]) { _, change in
            seen.append(change.newValue.flatMap { $0 } ?? "none")
        }
        desk.page = page
        // Evaluating the chain on the writer's thread would read `desk` there, a thread that does not hold it.
        await StartedThread { page.title = "elsewhere" }.finished()
        #expect(seen.values == [""])
        desk.page = nil
        #expect(seen.values == ["", "none"])
        token.invalidate()
    }

    @Test func aChainFromASendableRootFollowsASharedObjectOnAnyThread() async {
        let desk = SharedDesk()
        let page = SharedPage()
        desk.page = page
        let seen = Recorder<String>()
        let token = desk.observe(\.page?.title, options: [.new]) { _, change in
            seen.append(change.newValue.flatMap { $0 } ?? "none")
        }
        await StartedThread { page.title = "elsewhere" }.finished()
        #expect(seen.values == ["elsewhere"])
        token.invalidate()
    }

    @Test func aKeyValueObserverFollowsItFromASendableRootOnly() async {
        let (desk, sharedDesk, page) = (Desk(), SharedDesk(), SharedPage())
        (desk.page, sharedDesk.page) = (page, page)
        let observer = KeyValueObserver()
        let seen = Recorder<String>()
        observer.observe(desk, \.page?.title, options: [.new]) { _, change in
            seen.append("desk \(change.newValue.flatMap { $0 } ?? "none")")
        }
        observer.observe(sharedDesk, \.page?.title, options: [.new]) { _, change in
            seen.append("shared desk \(change.newValue.flatMap { $0 } ?? "none")")
        }
        await StartedThread { page.title = "elsewhere" }.finished()
        #expect(seen.values == ["shared desk elsewhere"])
        observer.unobserveAll()
    }

    @Test func aSharedObjectNotFollowedIsReportedOncePerObservation() {
        let desk = ReportedDesk()
        let reports = Recorder<String>()
        let issues = ObservationDiagnostics.addIssueHandler { issue in
            if case .sharedObjectNotFollowed(let type, _) = issue, type.hasSuffix(".ReportedDesk") {
                reports.append(type)
            }
        }
        let token = desk.observe(\.page?.title) { _, _ in }
        #expect(reports.values.isEmpty)  // no page yet: nothing shared on the path
        desk.page = SharedPage()
        desk.page = SharedPage()
        #expect(reports.values.count == 1)
        token.invalidate()
        issues.invalidate()
    }

    @Test func aRootReadThroughItsOwnLetStorageIsKnownToBeSendable() async {
        let desk = SharedDesk()
        let page = SharedPage()
        desk.page = page
        let seen = Recorder<String>()
        let token = observeUnknown(desk, \.page?.title, into: seen)
        await StartedThread { page.title = "elsewhere" }.finished()
        #expect(seen.values == ["unknown"])
        token.invalidate()
    }

    @Test func aSendableRootWhoseOwnStorageIsNotReadIsKnownThroughADelivery() async {
        let shelf = Shelf()
        let seen = Recorder<String>()
        let unknown = observeUnknown(shelf, \.page.title, into: seen)
        let known = shelf.observe(\.page.title, options: [.new], delivery: .mutatingThread) { _, change in
            seen.append("known \(change.newValue!)")
        }
        await StartedThread { shelf.page.title = "elsewhere" }.finished()
        #expect(seen.values == ["known elsewhere"])
        unknown.invalidate()
        known.invalidate()
    }
}
