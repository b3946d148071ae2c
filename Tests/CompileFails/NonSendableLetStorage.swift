// expect: type 'Desk' does not conform to the 'Sendable' protocol
// Storage kept in a `let` is how a chain knows an object that other threads may write: only a Sendable object has it.
import Observing

final class Desk: KeyValueObservable {
    let _title = Observed(wrappedValue: "")
}

extension Desk { var title: String { _title[self, \.title] } }
