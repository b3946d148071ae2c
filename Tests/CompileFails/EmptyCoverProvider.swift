// expect: type 'Empty' does not conform to protocol 'CoverProvider'
// An empty conformance does not compile: CoverProvider has one requirement and nothing provides it (with a default
// for each of two requirements calling the other, it compiled and a request recursed until memory ran out).
import CanvasKit

final class Empty: CoverProvider {}
