/// Why the store could not serve a request.
public enum StoreError: Error, Sendable {
    /// The store cannot be reached now (locked past its timeout, disk full, file missing or
    /// unreadable): the client should retry after `retryAfterSeconds`.
    case unavailable(retryAfterSeconds: Int)
    /// A defect: an SQL error that no outside condition explains. The text has the SQL and
    /// SQLite's message, never the bound values.
    case failure(String)
}
