/// A byte-bounded least-recently-used map: a dictionary whose entries form a doubly linked list
/// (by key) from most to least recently used. Every operation is O(1) on average except
/// eviction, which is O(evicted).
///
/// A plain value: ``CoverCache`` keeps one inside a `Mutex`.
struct LeastRecentlyUsed<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var cost: Int
        var newer: Key?
        var older: Key?
    }

    private var entries: [Key: Entry] = [:]
    private var newest: Key?
    private var oldest: Key?
    /// The largest total cost kept.
    let capacity: Int
    /// The total cost of the entries.
    private(set) var totalCost = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        unlink(key, entry)
        linkAsNewest(key)
        return entry.value
    }

    /// Inserts or replaces `key`, as the most recently used, then evicts the least recently
    /// used entries until the total cost fits. Returns the evicted keys. A value costing more
    /// than the whole capacity is not kept.
    @discardableResult
    mutating func insert(_ value: Value, cost: Int, for key: Key) -> [Key] {
        removeValue(for: key)
        guard cost <= capacity else { return [] }
        entries[key] = Entry(value: value, cost: cost, newer: nil, older: nil)
        totalCost += cost
        linkAsNewest(key)
        var evicted: [Key] = []
        while totalCost > capacity, let victim = oldest {
            removeValue(for: victim)
            evicted.append(victim)
        }
        return evicted
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func removeValue(for key: Key) -> Bool {
        guard let entry = entries[key] else { return false }
        unlink(key, entry)
        entries[key] = nil
        totalCost -= entry.cost
        return true
    }

    mutating func removeAll() {
        entries.removeAll()
        newest = nil
        oldest = nil
        totalCost = 0
    }

    /// Keys from most to least recently used (for tests).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = newest
        while let key = cursor {
            keys.append(key)
            cursor = entries[key]?.older
        }
        return keys
    }

    private mutating func unlink(_ key: Key, _ entry: Entry) {
        if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
        entries[key]?.newer = nil
        entries[key]?.older = nil
    }

    private mutating func linkAsNewest(_ key: Key) {
        entries[key]?.older = newest
        entries[key]?.newer = nil
        if let previous = newest { entries[previous]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }
}
