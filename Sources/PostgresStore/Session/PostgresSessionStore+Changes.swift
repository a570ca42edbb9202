import Relaydeck

extension PostgresSessionStore {
    /// A connection is up (the store makes one again by itself when it is lost).
    public func isHealthy() -> Bool { isAvailable }

    /// A write that records changes: planned through its session (their pushes are rows of
    /// the same transaction), written to the change feed for the other nodes, and published
    /// to `hub` once its COMMIT succeeded, in the order recorded; nothing is published or fed
    /// when it rolls back.
    @discardableResult
    public func writing<T>(hub: EventHub, _ body: (any StoreSession, ChangeRecorder) async throws -> T) async throws -> T {
        let kept = KeptChanges()
        let result = try await transaction { session in
            let value = try await body(session, ChangeRecorder(session: session, hub: hub, keeper: kept, depth: 0))
            // For the other nodes, in the order of the commits (`ChangeFeed.append` holds the
            // feed's head from its statement to the COMMIT, which goes in the same batch).
            guard let feedNode else { return (value, nil) }
            return (value, try ChangeFeed.appending(kept.changes, node: feedNode))
        }
        kept.publish()
        return result
    }
}
