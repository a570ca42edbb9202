import Postgres

/// One connection of `PostgresSessionStore` and its session, held by one body at a time (a
/// write's statements must not interleave with another's in its transaction, nor a read's).
/// Made again for each connection, so a body that held a lost one can neither run on its
/// successor nor hand its successor over. Loop thread only; not Sendable.
final class PostgresLink {
    let session: PostgresSession
    /// A body has it now (or it was just given to one that waited).
    var isHeld = false
    private(set) var isEnded = false

    init(_ connection: PostgresConnection) {
        session = PostgresSession(connection)
    }

    var connection: PostgresConnection { session.connection }

    /// The connection closes (if it had not ended by itself): the holder's statements in
    /// flight fail.
    func end() {
        guard !isEnded else { return }
        isEnded = true
        connection.close()
    }
}

@available(*, unavailable, message: "a link belongs to the loop thread, as its connection does")
extension PostgresLink: Sendable {}
