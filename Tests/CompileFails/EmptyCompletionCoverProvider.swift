// expect: type 'Empty' does not conform to protocol 'CompletionCoverProvider'
// A completion-handler provider must implement its one requirement: nothing provides requestCover either.
import CanvasKit

final class Empty: CompletionCoverProvider {}
