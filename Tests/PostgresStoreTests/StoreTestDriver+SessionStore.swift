import Postgres
import PostgresStore
import Testing

extension StoreTestDriver {
    /// A `PostgresSessionStore` on `database` as `rd_scram`, started, once its connection is up.
    func sessionStore(_ database: String, backoff: ReconnectBackoff = ReconnectBackoff()) throws -> PostgresSessionStore {
        let connector = try PostgresConnector(settings: settings(database: database), loop: loop)
        let store = PostgresSessionStore(connector: connector, loop: loop, backoff: backoff)
        store.start()
        run { store.isAvailable }
        try #require(store.isAvailable, "the store did not connect within 60 s")
        return store
    }
}
