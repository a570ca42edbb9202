import Postgres
import Relaydeck

/// A `PostgresRow` read as a session's row. A wrapper rather than a conformance of
/// `PostgresRow` itself, because `bool` differs: the store's schema keeps booleans as BIGINT
/// 0 and 1 (`PostgresSchema`), which `PostgresRow.bool` refuses (it reads `boolean` only,
/// and keeps that meaning for the client's other users).
///
/// Not read: `numeric`, which `sum()` and `avg()` of integers give and which the client has no
/// reader for (a mismatch, never a guess); such SQL casts (`sum(n)::bigint`). Nor a `1.5`
/// literal, which is `numeric` too (`1.5::float8`).
struct PostgresStoreRow: StoreRow {
    let row: PostgresRow
    let sql: String

    init(_ row: PostgresRow, sql: String) {
        self.row = row
        self.sql = sql
    }

    func text(_ name: String) throws -> String { try row.text(name) }
    func optionalText(_ name: String) throws -> String? { try row.optionalText(name) }
    func int64(_ name: String) throws -> Int64 { try row.int64(name) }
    func optionalInt64(_ name: String) throws -> Int64? { try row.optionalInt64(name) }
    func int(_ name: String) throws -> Int { try row.int(name) }
    func blob(_ name: String) throws -> [UInt8] { try row.bytes(name) }
    func optionalBlob(_ name: String) throws -> [UInt8]? { try row.optionalBytes(name) }
    func double(_ name: String) throws -> Double { try row.double(name) }
    func isNull(_ name: String) throws -> Bool { try row.isNull(name) }

    /// An integer 0 or 1, or a `boolean`.
    func bool(_ name: String) throws -> Bool {
        switch Result(catching: { () throws(PostgresError) in try row.int64(name) }) {
        case .success(0): return false
        case .success(1): return true
        case .success: throw PostgresError(.mismatch, "the result column \(name) is not 0 or 1", sql: sql)
        case .failure(let error):
            // Not an integer (or NULL): a boolean reads, anything else keeps the first error.
            guard error.kind == .mismatch, let flag = try? row.bool(name) else { throw error }
            return flag
        }
    }
}
