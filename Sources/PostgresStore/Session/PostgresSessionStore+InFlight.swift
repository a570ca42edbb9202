/// The writes in flight, for what must wait until they end: a push drain kicked by a planner
/// inside a write must not read the outbox before that write's COMMIT, which on PostgreSQL
/// comes turns later, on a connection of its own (with a pool, the drain's reads go on another
/// connection and would not see the jobs; nothing would kick it again).
extension PostgresSessionStore {
    public func afterWritesInFlight(_ action: @escaping () -> Void) {
        guard !writesInFlight.isEmpty else {
            action()
            return
        }
        afterWrites.append((writesBegun, action))
    }

    func beginWrite() -> UInt64 {
        writesBegun += 1
        writesInFlight.insert(writesBegun)
        return writesBegun
    }

    /// The write ended: each action whose writes have all ended runs, in the order asked.
    func endWrite(_ write: UInt64) {
        writesInFlight.remove(write)
        guard !afterWrites.isEmpty else { return }
        let oldest = writesInFlight.min() ?? .max
        let due = afterWrites.filter { $0.upTo < oldest }
        guard !due.isEmpty else { return }
        afterWrites.removeAll { $0.upTo < oldest }
        for item in due { item.action() }
    }
}
