import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message at the time, and the SQL
/// of the statement involved. Bound values are never kept, so the error can be logged as is.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (for example 2067, SQLITE_CONSTRAINT_UNIQUE).
    public let code: Int32
    /// sqlite3_errmsg when the error happened.
    public let message: String
    /// The statement's SQL, if a statement was involved; never the bound values.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (SQLITE_BUSY, SQLITE_CONSTRAINT, ...).
    public var primaryCode: Int32 { code & 0xFF }

    /// The store cannot be reached right now; the API answers 503 and the client retries
    /// later. These are conditions of the file, the disk or other processes, not of the
    /// request.
    public var isUnavailable: Bool {
        switch primaryCode {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN,
             SQLITE_READONLY, SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_PERM, SQLITE_NOMEM,
             SQLITE_PROTOCOL, SQLITE_NOLFS, SQLITE_AUTH:
            return true
        default:
            return false
        }
    }

    /// Among the `isUnavailable` errors, those after which the connection cannot be trusted:
    /// a file that cannot be opened or read, or is not (or no longer) a database, may have
    /// been replaced or restored, so it needs a new connection. A lock, a full disk or a
    /// failed write passes with the same connection (reads go on working meanwhile).
    public var needsNewConnection: Bool {
        switch primaryCode {
        case SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_NOTADB:
            return true
        case SQLITE_IOERR:
            // Writing, syncing or growing failed (disk full, a file size limit): the file is
            // still good.
            return !Self.writeFailures.contains(code)
        default:
            return false
        }
    }

    /// SQLITE_IOERR_WRITE, _FSYNC, _DIR_FSYNC, _TRUNCATE (the extended codes are macros
    /// that Swift does not import).
    static let writeFailures: Set<Int32> = [
        SQLITE_IOERR | (3 << 8), SQLITE_IOERR | (4 << 8), SQLITE_IOERR | (5 << 8), SQLITE_IOERR | (6 << 8),
    ]

    /// A UNIQUE, NOT NULL, CHECK, FOREIGN KEY or PRIMARY KEY constraint failed.
    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    /// "SQLite error 5 (database is locked) in: <sql>".
    public var description: String {
        var text = "SQLite error \(code) (\(message))"
        if let sql { text += " in: \(sql)" }
        return text
    }
}

extension SQLiteError {
    /// The connection's current error, read right after a call returned `code`.
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let message: String
        if let connection, let text = sqlite3_errmsg(connection) {
            message = String(cString: text)
        } else if let text = sqlite3_errstr(code) {
            message = String(cString: text)
        } else {
            message = "unknown error"
        }
        self.init(code: code, message: message, sql: sql)
    }

    /// A call on a closed database or a finalized statement: a programmer error, reported
    /// instead of trapping because the server must not crash over it.
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, sql: sql)
    }
}
