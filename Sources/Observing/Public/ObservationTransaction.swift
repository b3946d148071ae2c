/// Runs `body` as one transaction of writes: each write is stored at once (a read inside `body` sees it), and the
/// notifications of all of them are delivered after `body` returns, in the order the values were stored.
///
/// So an observer that reads several properties sees every value of the transaction from its first notification: a
/// view-model observing two properties that one event writes derives its state once, from both, with no call back into
/// whoever wrote them. Use it around the writes of one event:
///
/// ```swift
/// import Observing
///
/// final class Canvas: KeyValueObservable {
///     @Observed var isSelected = false
///     @Observed var isPreviewing = false
/// }
///
/// let canvas = Canvas()
/// let token = canvas.observe(\.isSelected, options: [.new]) { canvas, _ in
///     print(canvas.isSelected, canvas.isPreviewing)    // true true: both are stored already
/// }
/// withObservationTransaction {
///     canvas.isSelected = true
///     canvas.isPreviewing = true
/// }
/// token.invalidate()
/// ```
///
/// Transactions nest (the outermost one delivers), and a transaction inside a handler delivers after that handler
/// returns, like any write made there (O8). The transaction belongs to the calling thread: writes other threads make
/// meanwhile are delivered as usual.
public func withObservationTransaction<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
) throws(Failure) -> Result {
    try ThreadContext.current.frame(body)
}
