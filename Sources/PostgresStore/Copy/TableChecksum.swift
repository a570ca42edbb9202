import Crypto
import SQLite

/// What the copy compares, per table, before it commits: the row count, and the sum of the
/// first 64 bits (a big-endian signed integer) of SHA-256 of each row's canonical encoding.
/// Swift sums the rows it read out of the SQLite file (`add`); PostgreSQL sums the rows it
/// holds with `sha256()` over the same bytes (`postgresSQL`). Both sums are exact (Int128
/// here, numeric there), and the order of rows does not matter.
///
/// The encoding, column by column in the copy's order (`rowid` first where it is copied):
///
/// | value   | bytes |
/// |---------|-------|
/// | NULL    | `00` |
/// | integer | `01`, 8 bytes big-endian two's complement |
/// | text    | `02`, its UTF-8 byte count in 4 bytes big-endian, the bytes |
/// | blob    | `03`, its byte count in 4 bytes big-endian, the bytes |
///
/// The type byte and the lengths keep `NULL` apart from `''`, `'ab','c'` from `'a','bc'`, and
/// a text from a blob of the same bytes.
public struct TableChecksum: Sendable, Equatable, CustomStringConvertible {
    public private(set) var rows: Int64 = 0
    public private(set) var sum: Int128 = 0

    public init() {}

    public init(rows: Int64, sum: Int128) {
        self.rows = rows
        self.sum = sum
    }

    /// Counts one row read from SQLite. Only NULL, integers, texts and blobs occur: the copy
    /// refuses a REAL before it counts.
    public mutating func add(_ values: [StoredValue]) {
        var bytes: [UInt8] = []
        for value in values {
            switch value {
            case .null, .real: bytes.append(0)
            case .integer(let number):
                bytes.append(1)
                Self.append(UInt64(bitPattern: number), width: 8, to: &bytes)
            case .text(let text):
                bytes.append(2)
                Self.append(UInt64(text.count), width: 4, to: &bytes)
                bytes += text
            case .blob(let blob):
                bytes.append(3)
                Self.append(UInt64(blob.count), width: 4, to: &bytes)
                bytes += blob
            }
        }
        let prefix = SHA256.hash(bytes).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        sum += Int128(Int64(bitPattern: prefix))
        rows += 1
    }

    public var description: String { "\(rows) row\(rows == 1 ? "" : "s"), checksum \(sum)" }

    /// The statement that gives `row_count` and `checksum` (the sum as text) of `table` in
    /// PostgreSQL, over `columns` in the copy's order. Names are the schema's, checked
    /// against both stores before any statement is built from them.
    public static func postgresSQL(table: String, columns: [(name: String, kind: ColumnKind)]) -> String {
        let encoded = columns.map { column -> String in
            let name = SQLiteSnapshot.quoted(column.name)
            let bytes = switch column.kind {
            case .integer: "decode('01', 'hex') || int8send(\(name))"
            case .text: "decode('02', 'hex') || int4send(octet_length(\(name))) || convert_to(\(name), 'UTF8')"
            case .blob: "decode('03', 'hex') || int4send(octet_length(\(name))) || \(name)"
            }
            // Any NULL makes the whole concatenation NULL: then the column is the one byte 00.
            return "coalesce(\(bytes), decode('00', 'hex'))"
        }
        let row = encoded.isEmpty ? "''::bytea" : encoded.joined(separator: " || ")
        return "SELECT count(*) AS row_count, "
            + "coalesce(sum(('x' || encode(substring(sha256(\(row)) FROM 1 FOR 8), 'hex'))::bit(64)::bigint), 0)::text AS checksum "
            + "FROM \(SQLiteSnapshot.quoted(table))"
    }

    private static func append(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for index in stride(from: width - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)))
        }
    }
}
