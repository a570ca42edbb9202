import Postgres
import PostgresStore
import Testing

extension StoreTestDriver {
    /// A `PostgresSessionStore` of `connections` on `database` as `rd_scram`, started, once
    /// all its connections are up.
    func sessionStore(_ database: String, backoff: ReconnectBackoff = ReconnectBackoff(),
                      connections: Int = PostgresSessionStore.defaultConnections) throws -> PostgresSessionStore {
        let connector = try PostgresConnector(settings: settings(database: database), loop: loop)
        let store = PostgresSessionStore(connector: connector, loop: loop, backoff: backoff, connections: connections)
        store.start()
        run { store.connectedCount == connections }
        try #require(store.connectedCount == connections, "the store did not connect within 60 s")
        return store
    }
}
