/// Prepared statements keyed by their SQL text.
///
/// Bounded, because a caller that builds SQL per request (an IN list of varying length)
/// would otherwise grow it forever. When full it starts over: statements still held by a
/// caller stay valid (they own their handles) and are finalized when released.
struct StatementCache {
    static let limit = 512

    private var statements: [String: Statement] = [:]

    subscript(sql: String) -> Statement? {
        statements[sql]
    }

    var count: Int { statements.count }

    mutating func insert(_ statement: Statement) {
        if statements.count >= Self.limit {
            statements.removeAll()
        }
        statements[statement.sql] = statement
    }

    /// Finalizes every statement, including those a caller still holds, so that closing
    /// the connection does not leave it waiting for them.
    mutating func finalizeAll() {
        for statement in statements.values {
            statement.finalize()
        }
        statements.removeAll()
    }
}
