/// Prepared statements keyed by their SQL text.
///
/// Bounded, because a caller that builds SQL per request (an IN list of varying length)
/// would otherwise grow it forever. When full it starts over: statements still held by a
/// caller stay valid (they own their handles) and are finalized when released.
struct StatementCache {
    static let limit = 512

    private var statements: [Key: Statement] = [:]

    subscript(sql: String) -> Statement? {
        statements[Key(sql)]
    }

    var count: Int { statements.count }

    mutating func insert(_ statement: Statement) {
        if statements.count >= Self.limit {
            statements.removeAll()
        }
        statements[Key(statement.sql)] = statement
    }

    /// Finalizes every statement, including those a caller still holds, so that closing
    /// the connection does not leave it waiting for them.
    mutating func finalizeAll() {
        for statement in statements.values {
            statement.finalize()
        }
        statements.removeAll()
    }

    /// The SQL text, hashed by its length and a few 8-byte words taken at fixed places
    /// instead of every byte: the statements of the application are a few hundred bytes
    /// each, and a task write looks up about fifteen, so hashing them whole was 3% of its
    /// instructions (`Hasher.combine(bytes:)`, 15,000 of 440,000 per request under
    /// `bench/cost.py --callgrind task-write`). Equality is the whole text, so two texts that
    /// agree at those places only share a bucket; it is the same string most times (the SQL
    /// constants), which `==` tells from their storage at once.
    struct Key: Hashable {
        let sql: String

        init(_ sql: String) {
            self.sql = sql
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.sql == rhs.sql
        }

        func hash(into hasher: inout Hasher) {
            let sampled: Void? = sql.utf8.withContiguousStorageIfAvailable { bytes in
                hasher.combine(bytes.count)
                guard bytes.count >= 8 else {
                    hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
                    return
                }
                let raw = UnsafeRawBufferPointer(bytes)
                let last = bytes.count - 8
                for offset in [0, last / 4, last / 2, last * 3 / 4, last] {
                    hasher.combine(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                }
            }
            if sampled == nil {
                // Not contiguous UTF-8 (never the case for Swift's own strings): hash it whole.
                hasher.combine(sql)
            }
        }
    }
}
