// expect: type 'ViewModel' does not conform to the 'Sendable' protocol
// A handler that receives the owner runs on the writing thread: an owner that is not Sendable cannot be handed to it.
import Observing

final class Document: KeyValueObservable {
    @Observed var title = ""
}

final class ViewModel {
    var title = ""
    lazy var observer = KeyValueObserver(owner: self)
}

let document = Document()
let viewModel = ViewModel()
viewModel.observer.observe(document, \.title) { (owner: ViewModel, _, change) in owner.title = change.newValue! }
