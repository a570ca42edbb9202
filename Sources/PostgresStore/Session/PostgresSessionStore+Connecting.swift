import EventLoop
import Postgres

/// The store's connections: the first `opening` made at `start`, each of the others the first
/// time a body finds every connection up held (`grow`), each made again by itself when lost, at
/// the pace of its place's `ReconnectBackoff` (`Reconnection` decides; this carries it out on
/// the loop). No request is needed to start an attempt once its place is open, and none waits
/// for one. A node that never has two bodies at once keeps one connection: one backend on the
/// database's side and one connection's buffers here (a Pi's start stays under 12 MB).
extension PostgresSessionStore {
    /// Begins connecting the first `opening` places of the pool (at least one, at most all);
    /// `isAvailable` turns true once a connection is up.
    public func start(opening: Int = 1) {
        isStarted = true
        for slot in slots.prefix(max(1, opening)) { carryOut(slot.reconnection.start(), for: slot) }
    }

    /// A body is about to wait with every connection up held: the first place never opened
    /// begins connecting (its connection goes to the first body waiting, `offer`). One a body
    /// that waits, so a burst opens as many places as it needs, never more than the pool has.
    func grow() {
        guard isStarted, let slot = slots.first(where: { $0.reconnection.phase == .stopped }) else { return }
        carryOut(slot.reconnection.start(), for: slot)
    }

    /// Ends every connection and every attempt: what the holders run fails, the bodies waiting
    /// and all later ones are refused with `.unavailable`.
    public func stop() {
        let wasAvailable = isAvailable
        isStarted = false
        for slot in slots {
            slot.reconnection.stop()
            if let retryTimer = slot.retryTimer { loop.cancel(retryTimer) }
            slot.retryTimer = nil
            let link = slot.link
            slot.link = nil
            link?.end()
        }
        refuseWaiting()
        guard wasAvailable else { return }
        lostAt = loop.now
        announce(false, PostgresError(.closed, "the store was stopped"))
    }

    /// `lost` ends, unless another has replaced it already; then its place's next attempt.
    /// The bodies waiting go on waiting while another connection is up (one will be handed
    /// over), and are refused when none is.
    func lose(_ lost: PostgresLink, _ error: PostgresError) {
        guard let slot = slots.first(where: { $0.link === lost }) else { return }
        slot.link = nil
        lost.end()
        if !isAvailable {
            lostAt = loop.now
            refuseWaiting()
            announce(false, error)
        }
        carryOut(slot.reconnection.lost(at: loop.now), for: slot)
    }

    private func carryOut(_ action: Reconnection.Action, for slot: PoolSlot) {
        switch action {
        case .none:
            break
        case .connect:
            connector.connect { [weak self, weak slot] result in
                guard let self, let slot else {
                    if case .success(let connection) = result { connection.close() }
                    return
                }
                connectEnded(result, for: slot)
            }
        case .retry(let due):
            slot.retryTimer = loop.schedule(at: due) { [weak self, weak slot] in
                guard let self, let slot else { return }
                slot.retryTimer = nil
                carryOut(slot.reconnection.retryDue(), for: slot)
            }
        }
    }

    private func connectEnded(_ result: Result<PostgresConnection, PostgresError>, for slot: PoolSlot) {
        switch result {
        case .success(let connection):
            guard slot.reconnection.connected(at: loop.now) else {
                connection.close()
                return
            }
            let made = PostgresLink(connection)
            connection.onClose = { [weak self, weak made] error in
                guard let self, let made else { return }
                lose(made, error)
            }
            slot.link = made
            announce(true, nil)
            offer(made)
        case .failure(let error):
            carryOut(slot.reconnection.connectFailed(at: loop.now), for: slot)
            // Told once (`announced`), and only while no other place is up.
            if !isAvailable { announce(false, error) }
        }
    }

    private func announce(_ available: Bool, _ reason: PostgresError?) {
        guard announced != available else { return }
        announced = available
        onAvailabilityChange?(available, reason)
    }
}
