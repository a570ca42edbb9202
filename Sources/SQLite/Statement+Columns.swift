import CSQLite

// Column reads of the current row, 0-based, straight from the statement (no row objects).
// SQLite converts between classes as documented for sqlite3_column_*: NULL reads as 0, 0.0,
// false, nil; text that is not a number reads as 0. A column index out of range reads as
// NULL, as does any read of a finalized statement.
extension Statement {
    public func int64(_ column: Int32) -> Int64 {
        guard let handle else { return 0 }
        return sqlite3_column_int64(handle, column)
    }

    /// On a 32-bit platform a value beyond Int's range is truncated, never trapped.
    public func int(_ column: Int32) -> Int {
        Int(truncatingIfNeeded: int64(column))
    }

    public func double(_ column: Int32) -> Double {
        guard let handle else { return 0 }
        return sqlite3_column_double(handle, column)
    }

    public func bool(_ column: Int32) -> Bool {
        int64(column) != 0
    }

    /// The text, decoded with its byte length (so embedded NULs survive); invalid UTF-8 is
    /// repaired with U+FFFD. nil for NULL.
    public func string(_ column: Int32) -> String? {
        guard let handle else { return nil }
        // Pointer first, then the length: that order keeps the length of the converted text.
        guard let text = sqlite3_column_text(handle, column) else {
            // A zero-length blob also reads as a NULL pointer.
            return sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : ""
        }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes; an empty blob is [], NULL is nil.
    public func blob(_ column: Int32) -> [UInt8]? {
        guard let handle else { return nil }
        guard let bytes = sqlite3_column_blob(handle, column) else {
            return sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : []
        }
        let count = Int(sqlite3_column_bytes(handle, column))
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    public func isNull(_ column: Int32) -> Bool {
        guard let handle else { return true }
        return sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The column as stored, a TEXT as its bytes (see `StoredValue`).
    public func stored(_ column: Int32) -> StoredValue {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        // sqlite3_column_blob of a TEXT gives its bytes as stored, without conversion.
        case SQLITE_TEXT: return .text(blob(column) ?? [])
        case SQLITE_BLOB: return .blob(blob(column) ?? [])
        default: return .null
        }
    }

    /// The column as stored, in its own storage class.
    public func value(_ column: Int32) -> SQLiteValue {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return .text(string(column) ?? "")
        case SQLITE_BLOB: return .blob(blob(column) ?? [])
        default: return .null
        }
    }
}
