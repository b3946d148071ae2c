/// Shrinks a failing input sequence to a locally minimal one: no single chunk can be removed and no element simplified
/// while the property still fails (delta debugging, then element-wise simplification, to a fixed point).
enum Shrinker {
    static func shrink<Element>(
        _ input: [Element],
        simplifications: (Element) -> [Element] = { _ in [] },
        fails: ([Element]) -> Bool
    ) -> [Element] {
        var current = input
        var progress = true
        while progress {
            progress = false
            // Remove runs of consecutive elements, longest first, at every offset (a run that only works as a whole,
            // like "move away; remove; move back", must go in one piece).
            var chunk = max(current.count / 2, 1)
            while chunk >= 1 {
                var start = 0
                while start + chunk <= current.count {
                    var candidate = current
                    candidate.removeSubrange(start..<start + chunk)
                    if fails(candidate) {
                        current = candidate
                        progress = true
                    } else {
                        start += 1
                    }
                }
                chunk = chunk > 8 ? chunk / 2 : chunk - 1
            }
            // Simplify elements one by one.
            for index in current.indices {
                for simpler in simplifications(current[index]) {
                    var candidate = current
                    candidate[index] = simpler
                    if fails(candidate) {
                        current = candidate
                        progress = true
                        break
                    }
                }
            }
        }
        return current
    }
}
