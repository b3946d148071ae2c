import SeededRandom
import Testing

@testable import CanvasKit

@Suite("Chunked storage")
struct ChunkedArrayTests {
    @Test("Behaves like Array under appends, writes and removals across chunk boundaries")
    func matchesArray() {
        var generator = SplitMix64(seed: 42)
        var chunked = ChunkedArray<Int>()
        var reference: [Int] = []
        for step in 0..<3_000 {
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll < 5 || reference.isEmpty {
                chunked.append(step)
                reference.append(step)
            } else if roll < 8 {
                let index = Int.random(in: 0..<reference.count, using: &generator)
                chunked[index] = -step
                reference[index] = -step
            } else {
                let index = Int.random(in: 0..<reference.count, using: &generator)
                #expect(chunked.remove(at: index) == reference.remove(at: index))
            }
            if step % 97 == 0 { #expect(Array(chunked) == reference) }
        }
        #expect(Array(chunked) == reference)
        #expect(chunked.count == reference.count)
        #expect(chunked == ChunkedArray(reference))
        #expect(chunked.hashValue == ChunkedArray(reference).hashValue)
    }

    @Test("A copy is independent of the original (value semantics)")
    func valueSemantics() {
        let original = ChunkedArray(0..<100)
        var copy = original
        copy[70] = -1
        copy.remove(at: 3)
        copy.append(7)
        #expect(Array(original) == Array(0..<100))
        #expect(copy[69] == -1 && copy.count == 100 && copy.last == 7)
        #expect(original != copy)
    }
}
