/// An array stored in fixed-size chunks, so that changing one element of a copy copies one chunk and the table of
/// chunks, not the whole array.
///
/// `BoardState` keeps its canvases in one of these: the pure transition function leaves the old board intact, and with
/// a flat array a `stop` or `delete` on a board of 1,000 canvases would copy 1,000 elements. Here it copies
/// `count / chunkSize` chunk references and one chunk of `chunkSize` elements. Insertion and removal in the middle
/// stay linear, as for `Array`.
struct ChunkedArray<Element> {
    static var chunkShift: Int { 5 }
    static var chunkSize: Int { 1 << chunkShift }

    private var chunks: ContiguousArray<ContiguousArray<Element>>
    private(set) var count: Int

    init() {
        chunks = []
        count = 0
    }

    init(_ elements: some Sequence<Element>) {
        self.init()
        for element in elements { append(element) }
    }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk = ContiguousArray<Element>()
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    /// Removes the element at `index`, shifting the later ones down. - Precondition: `index` is in `indices`.
    @discardableResult
    mutating func remove(at index: Int) -> Element {
        precondition(index >= 0 && index < count, "index out of range")
        let removed = self[index]
        var position = index
        while position < count - 1 {
            self[position] = self[position + 1]
            position += 1
        }
        chunks[chunks.count - 1].removeLast()
        if chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
        count -= 1
        return removed
    }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// Reading borrows the element where it is stored (`_read`): `slots[i].take` copies the take, not the whole
    /// element, so the element's other references are not retained and released on each read.
    subscript(position: Int) -> Element {
        _read {
            precondition(position >= 0 && position < count, "index out of range")
            yield chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)]
        }
        set {
            precondition(position >= 0 && position < count, "index out of range")
            chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] = newValue
        }
    }
}

extension ChunkedArray {
    /// Calls `body` with the element at `position` to change it in place. Unlike a get followed by a set, the element
    /// is not copied out, so what it holds stays uniquely referenced and changes without a copy or a reference count.
    /// - Precondition: `position` is in `indices`.
    mutating func update<Result>(at position: Int, _ body: (inout Element) -> Result) -> Result {
        precondition(position >= 0 && position < count, "index out of range")
        return body(&chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)])
    }

    /// Calls `body` with each index and its element, in order, chunk by chunk (no per-element index arithmetic).
    func enumerateElements(_ body: (Int, Element) throws -> Void) rethrows {
        var base = 0
        for chunk in chunks {
            for offset in chunk.indices { try body(base + offset, chunk[offset]) }
            base += chunk.count
        }
    }

    /// The first index whose element satisfies `predicate`, scanning chunk by chunk (no per-element index arithmetic).
    func firstIndex(where predicate: (Element) throws -> Bool) rethrows -> Int? {
        var base = 0
        for chunk in chunks {
            if let offset = try chunk.firstIndex(where: predicate) { return base + offset }
            base += chunk.count
        }
        return nil
    }
}

extension ChunkedArray: Equatable where Element: Equatable {
    /// Chunk by chunk, so that shared chunks compare by identity (Array's fast path).
    static func == (lhs: ChunkedArray, rhs: ChunkedArray) -> Bool {
        lhs.count == rhs.count && lhs.chunks == rhs.chunks
    }
}

extension ChunkedArray: Hashable where Element: Hashable {
    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}
