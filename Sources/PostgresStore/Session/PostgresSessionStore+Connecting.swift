import EventLoop
import Postgres

/// The store's connection: made at `start`, made again by itself when lost, at the pace of
/// `ReconnectBackoff` (`Reconnection` decides; this carries it out on the loop). No request
/// is needed to start an attempt, and none waits for one.
extension PostgresSessionStore {
    /// Begins connecting; `isAvailable` turns true once a connection is up.
    public func start() {
        carryOut(reconnection.start())
    }

    /// Ends the connection and every attempt: what the holder runs fails, the bodies waiting
    /// and all later ones are refused with `.unavailable`.
    public func stop() {
        reconnection.stop()
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = nil
        guard let link else { return }
        self.link = nil
        lostAt = loop.now
        link.end()
        announce(false, PostgresError(.closed, "the store was stopped"))
    }

    /// `lost` ends, unless another has replaced it already; then the next attempt.
    func lose(_ lost: PostgresLink, _ error: PostgresError) {
        guard link === lost else { return }
        link = nil
        lostAt = loop.now
        lost.end()
        announce(false, error)
        carryOut(reconnection.lost(at: loop.now))
    }

    private func carryOut(_ action: Reconnection.Action) {
        switch action {
        case .none:
            break
        case .connect:
            connector.connect { [weak self] result in
                guard let self else {
                    if case .success(let connection) = result { connection.close() }
                    return
                }
                connectEnded(result)
            }
        case .retry(let due):
            retryTimer = loop.schedule(at: due) { [weak self] in
                guard let self else { return }
                retryTimer = nil
                carryOut(reconnection.retryDue())
            }
        }
    }

    private func connectEnded(_ result: Result<PostgresConnection, PostgresError>) {
        switch result {
        case .success(let connection):
            guard reconnection.connected(at: loop.now) else {
                connection.close()
                return
            }
            let made = PostgresLink(connection)
            connection.onClose = { [weak self, weak made] error in
                guard let self, let made else { return }
                lose(made, error)
            }
            link = made
            announce(true, nil)
        case .failure(let error):
            carryOut(reconnection.connectFailed(at: loop.now))
            announce(false, error)
        }
    }

    private func announce(_ available: Bool, _ reason: PostgresError?) {
        guard announced != available else { return }
        announced = available
        onAvailabilityChange?(available, reason)
    }
}
