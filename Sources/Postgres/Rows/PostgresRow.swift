/// One row of a result, read by column name, like `Row` of the SQLite target: a name the
/// result does not have, a NULL where a value must be, or a type the reader does not take
/// throws a `.mismatch` naming the column, never an empty string or a zero.
///
/// Every column comes in binary (the client asks for it in each Bind), so the type's OID
/// says how to read it: integers (`int2`, `int4`, `int8`, `oid`), `float4`/`float8`,
/// `bool`, text (`text`, `varchar`, `bpchar`, `name`, `json`, `jsonb`, an untyped literal)
/// and `bytea`. Another type is read by casting in the SQL (`numeric::text`).
public struct PostgresRow {
    let columns: RowColumns
    let body: [UInt8]
    /// Where each column's value starts in `body`, and its length (-1: NULL).
    let fields: [(start: Int, length: Int)]
    let sql: String

    /// A DataRow's body, checked against the row's description.
    init(body: [UInt8], columns: RowColumns, sql: String) throws(PostgresError) {
        var reader = MessageReader(body)
        let count = Int(try reader.int16())
        guard count == columns.count else {
            throw PostgresError(.protocolViolation, "a row of \(count) columns for a description of \(columns.count)")
        }
        var fields: [(start: Int, length: Int)] = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let length = Int(try reader.int32())
            if length < 0 {
                fields.append((reader.position, -1))
            } else {
                let start = reader.position
                _ = try reader.bytes(length)
                fields.append((start, length))
            }
        }
        self.columns = columns
        self.body = body
        self.fields = fields
        self.sql = sql
    }

    /// The column names in the order of the result.
    public var columnNames: [String] { columns.descriptions.map(\.name) }

    /// The column `name`: its type and its bytes (nil for NULL).
    func field(_ name: String) throws(PostgresError) -> (type: UInt32, bytes: ArraySlice<UInt8>?) {
        guard let position = columns.position(name) else { throw mismatch("has no column \(name)") }
        let field = fields[position]
        let type = columns.descriptions[position].typeOID
        guard field.length >= 0 else { return (type, nil) }
        return (type, body[field.start..<(field.start + field.length)])
    }

    func mismatch(_ what: String) -> PostgresError {
        PostgresError(.mismatch, "the result \(what)", sql: sql)
    }
}
