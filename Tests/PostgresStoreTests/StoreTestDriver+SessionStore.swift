import Postgres
import PostgresStore
import Testing

extension StoreTestDriver {
    /// A `PostgresSessionStore` of `connections` on `database` as `rd_scram`, started with
    /// `opening` places open (all of them unless asked), once those are connected.
    func sessionStore(_ database: String, backoff: ReconnectBackoff = ReconnectBackoff(),
                      connections: Int = PostgresSessionStore.defaultConnections,
                      opening: Int? = nil) throws -> PostgresSessionStore {
        let connector = try PostgresConnector(settings: settings(database: database), loop: loop)
        let store = PostgresSessionStore(connector: connector, loop: loop, backoff: backoff, connections: connections)
        let opened = opening ?? connections
        store.start(opening: opened)
        run { store.connectedCount == opened }
        try #require(store.connectedCount == opened, "the store did not connect within 60 s")
        return store
    }
}
