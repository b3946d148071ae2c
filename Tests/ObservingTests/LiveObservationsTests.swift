import Foundation
import Testing

@testable import Observing

/// The list of live observations frees the ended ones at each pruning; how often a thread prunes follows the list's
/// length, so that ended observations are freed a few at a time while the list is short and a push walks only a few
/// nodes on average while it is long.
@Suite struct LiveObservationsTests {
    @Test func thePruneIntervalFollowsTheListsLength() {
        let circles = (0..<400).map { _ in Circle() }
        let tokens = circles.map { $0.observe(\.radius) { _, _ in } }
        // A listing prunes first, keeping at least these 400 (other tests' observations only add to them).
        #expect(ObservationDiagnostics.liveObservationCount >= 400)
        #expect(LiveObservations.pruneInterval >= 100)
        for token in tokens {
            token.invalidate()
        }
        withExtendedLifetime(circles) {}
        // Never below 8, whatever the list holds.
        #expect(LiveObservations.pruneInterval >= 8)
    }

    /// A token keeps no reference of its own to its observation: the list holds it for the token. So a pruning keeps an
    /// ended observation while its token lives (the token still reads it), and leaves it out of the listing; the first
    /// pruning after the token goes frees it.
    @Test func anEndedObservationIsKeptForItsTokenAndFreedAfterIt() {
        let circle = Circle()
        var token: ObservationToken? = circle.observe(\.radius) { _, _ in }
        weak let observation = token?.core as AnyObject?
        token?.invalidate()
        // Listing prunes first.
        #expect(ObservationDiagnostics.liveObservations(of: circle).isEmpty)
        #expect(observation != nil, "a pruning freed an observation its token still holds")
        #expect(token?.isActive == false)
        #expect(token?.description == "ObservationToken(inactive)")
        token = nil
        #expect(prune(until: { observation == nil }), "the observation outlived its token and the next pruning")
        withExtendedLifetime(circle) {}
    }

    /// A `KeyValueObserver` keeps no reference of its own either: the list holds a filed observation for it, ended or
    /// not, until the observer takes it out of its pairs; the first pruning after that frees it.
    @Test func anObserversObservationIsKeptWhileFiledAndFreedAfter() {
        let circle = Circle()
        let observer = KeyValueObserver()
        #expect(observer.observe(circle, \.radius) { _, _ in })
        var core = LiveObservations.all.first { $0.rootIdentifier == ObjectIdentifier(circle) }
        weak let observation = core as AnyObject?
        // Ended while still filed (as when its owner goes away): a pruning must keep it for the observer.
        core?.invalidate()
        core = nil
        _ = ObservationDiagnostics.liveObservationCount
        #expect(observation != nil, "a pruning freed an observation its observer still holds")
        #expect(!observer.isObserving(circle, \.radius))
        #expect(observer.observationCount == 0)
        #expect(!observer.unobserve(circle, \.radius), "an ended observation was reported active")
        #expect(prune(until: { observation == nil }), "the observation outlived its filing and the next pruning")
        withExtendedLifetime(circle) {}
    }

    /// Prunes the list (a listing does) until `done` is true or about a second has passed; returns `done()`. Another
    /// thread's pruning may have taken an observation off the list and release it only just after its own pruning.
    private func prune(until done: () -> Bool) -> Bool {
        var attempts = 0
        while !done() && attempts < 1_000 {
            _ = ObservationDiagnostics.liveObservationCount
            Thread.sleep(forTimeInterval: 0.001)
            attempts += 1
        }
        return done()
    }

    @Test func aThreadCountsItsListingsAcrossAChangingInterval() {
        let context = ThreadContext.current
        // An interval of 1 is due at once and starts the count again from nothing.
        #expect(context.countListing(every: 1))
        // Every third listing, then every fifth: the count starts again after each true.
        let first = (0..<6).map { _ in context.countListing(every: 3) }
        let then = (0..<5).map { _ in context.countListing(every: 5) }
        #expect(first == [false, false, true, false, false, true])
        #expect(then == [false, false, false, false, true])
    }
}
