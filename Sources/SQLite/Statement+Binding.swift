import CSQLite

// Parameter indexes are 1-based, as in SQLite. An index out of range throws SQLITE_RANGE.
// Text and blobs are copied by SQLite (SQLITE_TRANSIENT), so the caller's buffers may go.
extension Statement {
    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        let handle = try live()
        try check(sqlite3_bind_int64(handle, index, value), handle)
    }

    public func bind(_ value: Int, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value), at: index)
    }

    /// NaN is stored as NULL (SQLite's rule).
    public func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        let handle = try live()
        try check(sqlite3_bind_double(handle, index, value), handle)
    }

    /// Stored as the integer 1 or 0.
    public func bind(_ value: Bool, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    /// Binds UTF-8 text with its byte length (embedded NULs are kept); nil binds NULL.
    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        let handle = try live()
        guard var text = value else {
            try check(sqlite3_bind_null(handle, index), handle)
            return
        }
        let rc = text.withUTF8 { bytes in
            // A NULL pointer would bind NULL, not the empty string.
            let start = UnsafeRawPointer(bytes.baseAddress ?? Self.emptyText)
            return sqlite3_bind_text64(
                handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(bytes.count),
                relaydeck_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
        try check(rc, handle)
    }

    /// Binds a blob; an empty array is an empty blob (not NULL); nil binds NULL.
    public func bind(_ value: [UInt8]?, at index: Int32) throws(SQLiteError) {
        let handle = try live()
        guard let bytes = value else {
            try check(sqlite3_bind_null(handle, index), handle)
            return
        }
        let rc: Int32
        if bytes.isEmpty {
            // sqlite3_bind_blob with a NULL pointer would bind NULL.
            rc = sqlite3_bind_zeroblob(handle, index, 0)
        } else {
            rc = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, index, raw.baseAddress, UInt64(raw.count), relaydeck_sqlite_transient())
            }
        }
        try check(rc, handle)
    }

    public func bindNull(at index: Int32) throws(SQLiteError) {
        let handle = try live()
        try check(sqlite3_bind_null(handle, index), handle)
    }

    /// Binds `values` to parameters 1...n. The count must equal the statement's parameter
    /// count (SQLITE_RANGE otherwise): a missing value would silently be NULL.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        let handle = try live()
        let expected = sqlite3_bind_parameter_count(handle)
        guard values.count == Int(expected) else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "\(values.count) values for \(expected) parameters", sql: sql)
        }
        var index: Int32 = 1
        for value in values {
            try bind(value: value, at: index)
            index += 1
        }
    }

    func bind(value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let number): try bind(number, at: index)
        case .real(let number): try bind(number, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let bytes): try bind(bytes, at: index)
        }
    }

    private static var emptyText: UnsafePointer<UInt8> { ("" as StaticString).utf8Start }
}
