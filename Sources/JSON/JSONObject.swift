/// The members of a JSON object, in source order, duplicates kept.
///
/// The parser accepts duplicate keys (RFC 8259 only says they SHOULD be unique); whether they
/// are an error is the API layer's call, which `duplicateKeys` makes cheap to ask.
/// Lookups scan the members: objects in requests are small, and a scan of a few members beats
/// building a hash table for every object parsed.
public struct JSONObject: Sendable, Equatable, Sequence {
    /// The members in source order.
    public var members: [(key: String, value: JSON)]

    /// An object without members.
    public init() {
        members = []
    }

    /// An object with these members, in this order.
    public init(_ members: [(key: String, value: JSON)]) {
        self.members = members
    }

    /// Get: the value of the last member named `key` (JavaScript's `JSON.parse` keeps the last
    /// one too). Set: replaces the value of the last member named `key`, or appends a member;
    /// setting nil removes every member named `key`.
    public subscript(key: String) -> JSON? {
        get {
            guard let index = lastIndex(of: key) else { return nil }
            return members[index].value
        }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = lastIndex(of: key) {
                members[index].value = newValue
            } else {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// The member names in order, duplicates included.
    public var keys: [String] {
        members.map(\.key)
    }

    /// The number of members, duplicates included.
    public var count: Int {
        members.count
    }

    /// Each key that occurs more than once, listed once, in order of its first occurrence.
    public var duplicateKeys: [String] {
        guard members.count > 1 else { return [] }
        var occurrences: [String: Int] = [:]
        occurrences.reserveCapacity(members.count)
        for member in members {
            occurrences[member.key, default: 0] += 1
        }
        var duplicates: [String] = []
        for member in members where occurrences[member.key, default: 0] > 1 {
            duplicates.append(member.key)
            // Zero marks it reported, so later occurrences are skipped.
            occurrences[member.key] = 0
        }
        return duplicates
    }

    /// The first key (in source order of its second occurrence) that occurs more than once;
    /// nil when every key is unique. Small objects, the usual case, are compared pair by pair
    /// without building a table.
    public var firstDuplicateKey: String? {
        let count = members.count
        guard count > 1 else { return nil }
        if count <= 8 {
            for later in 1..<count {
                for earlier in 0..<later where members[earlier].key == members[later].key {
                    return members[later].key
                }
            }
            return nil
        }
        var seen: Set<String> = []
        seen.reserveCapacity(count)
        for member in members where !seen.insert(member.key).inserted {
            return member.key
        }
        return nil
    }

    /// Yields `(key:value:)` pairs in source order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> {
        members.makeIterator()
    }

    /// Same members with the same values in the same order. Order matters because it is
    /// observable (the writer keeps it) and because duplicates make "as a set" ill-defined.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) {
            guard left.key == right.key, left.value == right.value else { return false }
        }
        return true
    }

    private func lastIndex(of key: String) -> Int? {
        members.lastIndex { $0.key == key }
    }
}
