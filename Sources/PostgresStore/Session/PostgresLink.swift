import Postgres

/// One connection of `PostgresSessionStore`, its session, and the bodies that take it in
/// turn: one holds it (a write's statements must not interleave with another's in its
/// transaction, nor a read's), the others wait in order. Made again for each connection, so a
/// body that held a lost one can neither run on its successor nor hand its successor over.
///
/// When the connection ends (`end`) every body still waiting is refused: none is kept for a
/// connection that may take seconds to come, or never. Loop thread only; not Sendable.
final class PostgresLink {
    let session: PostgresSession
    private var held = false
    private var waiting: [CheckedContinuation<Bool, Never>] = []
    private(set) var isEnded = false

    init(_ connection: PostgresConnection) {
        session = PostgresSession(connection)
    }

    var connection: PostgresConnection { session.connection }

    var waitingCount: Int { waiting.count }

    /// Waits for the connection; true once it is this body's, false if it ended first.
    func take() async -> Bool {
        guard !isEnded else { return false }
        guard held else {
            held = true
            return true
        }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// The holder is done: the next waiting body gets the connection.
    func handOver() {
        guard !isEnded, !waiting.isEmpty else {
            held = false
            return
        }
        waiting.removeFirst().resume(returning: true)
    }

    /// The connection closes (if it had not ended by itself): the holder's statements in
    /// flight fail, and each body still waiting is refused, in order.
    func end() {
        guard !isEnded else { return }
        isEnded = true
        connection.close()
        let refused = waiting
        waiting = []
        for body in refused { body.resume(returning: false) }
    }
}

@available(*, unavailable, message: "a link belongs to the loop thread, as its connection does")
extension PostgresLink: Sendable {}
