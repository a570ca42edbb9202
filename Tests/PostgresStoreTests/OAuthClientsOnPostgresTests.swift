import Clock
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `OAuthClients` on a real PostgreSQL database (`PostgresSessionStore`, the filled store's
/// rows), with the behaviour its SQLite tests check: a client registers and is read back and
/// proves itself, a metadata document's copy is kept and read while fresh, and the clients
/// nothing used are removed by Retention's statement while a client with a grant stays.
@Suite struct OAuthClientsOnPostgresTests {
    static let redirect = "https://connector.example/callback"
    static let document = "https://connector.example/client.json"

    static func name(_ text: String) throws -> CheckedText {
        try TextRule.clientName.check(text).get()
    }

    @Test func aClientRegistersAndIsReadBackOnPostgreSQL() throws {
        let db = try PostgresSessionStoreTests.Filled()
        let clock = ManualClock()
        let clients = OAuthClients(store: db.store, clock: clock, random: SystemRandom())
        let (registered, secret) = try db.run {
            try await clients.register(name: try Self.name("Server"), redirectURIs: [Self.redirect, "http://127.0.0.1:9/cb"],
                                       authMethod: .clientSecretPost)
        }
        let issued = try #require(secret)
        #expect(registered.id.hasPrefix("oac_") && registered.kind == .registered && registered.createdAt == clock.wallMillis)
        #expect(try db.run { try await clients.get(registered.id) } == registered)
        // The filled store's own client, as it was copied.
        let claude = try #require(try db.run { try await clients.get("oac_1") })
        #expect(claude.name == "Claude" && claude.redirectURIs == ["https://claude.ai/cb"] && claude.authMethod == .clientSecretBasic)
        #expect(try db.run { try await clients.get("oac_none") } == nil)

        #expect(try db.run { try await clients.authenticate(id: registered.id, secret: issued.text) } == registered)
        #expect(throws: OAuthRefusal.clientSecretWrong) {
            try db.run { try await clients.authenticate(id: registered.id, secret: issued.text + "x") }
        }
        #expect(throws: OAuthRefusal.clientAuthMismatch) {
            try db.run { try await clients.authenticate(id: registered.id, secret: nil) }
        }
        #expect(throws: OAuthRefusal.clientUnknown) { try db.run { try await clients.authenticate(id: "oac_none", secret: nil) } }
    }

    @Test func aMetadataDocumentIsKeptAndReadWhileFreshOnPostgreSQL() throws {
        let db = try PostgresSessionStoreTests.Filled()
        let clock = ManualClock()
        let clients = OAuthClients(store: db.store, clock: clock, random: SystemRandom())
        let url = Self.document
        #expect(try db.run { try await clients.documentIsFresh(url: url) } == false)
        let kept = try db.run {
            try await clients.keepDocument(url: url, name: try Self.name("Metadata client"), redirectURIs: [Self.redirect],
                                           expiresAt: clock.wallMillis + 600_000)
        }
        #expect(try db.run { try await clients.get(url) } == kept)
        #expect(kept.kind == .document && kept.authMethod == .none)
        #expect(try db.run { try await clients.documentIsFresh(url: url) })

        // Ten minutes on the copy is stale; fetched again, it is replaced and fresh.
        clock.advance(millis: 600_000)
        #expect(try db.run { try await clients.documentIsFresh(url: url) } == false)
        _ = try db.run {
            try await clients.keepDocument(url: url, name: try Self.name("Renamed"), redirectURIs: [Self.redirect],
                                           expiresAt: clock.wallMillis + 600_000)
        }
        #expect(try db.run { try await clients.get(url) }?.name == "Renamed")
        #expect(try db.run { try await clients.documentIsFresh(url: url) })
        // A registered client's row is no document: neither fresh nor replaced.
        #expect(try db.run { try await clients.documentIsFresh(url: "oac_1") } == false)
    }

    @Test func theClientsNothingUsedAreRemovedAndOneWithAGrantStaysOnPostgreSQL() throws {
        let db = try PostgresSessionStoreTests.Filled()
        let clock = ManualClock()
        let clients = OAuthClients(store: db.store, clock: clock, random: SystemRandom())
        let (idle, used) = try db.run {
            (try await clients.register(name: try Self.name("Idle"), redirectURIs: [Self.redirect], authMethod: .none).client,
             try await clients.register(name: try Self.name("Used"), redirectURIs: [Self.redirect], authMethod: .none).client)
        }
        // A use after an hour is noted, and keeps the client past the first one's 30 days.
        clock.advance(millis: 2 * 86_400_000)
        _ = try db.run { try await clients.authenticate(id: used.id, secret: nil) }
        clock.advance(millis: OAuthClients.idleMillis - 86_400_000)
        let removed = try db.run {
            try await db.store.writing { session in
                try await session.run(Retention.SQL.deleteIdleClients, .integer(clock.wallMillis - OAuthClients.idleMillis),
                                      .integer(Int64(Retention.batchSize)))
            }
        }
        #expect(removed == 1)
        #expect(try db.run { try await clients.get(idle.id) } == nil)
        #expect(try db.run { try await clients.get(used.id) } != nil)
        // The filled store's client was last used long ago, but its grant keeps it.
        #expect(try db.run { try await clients.get("oac_1") } != nil)
    }
}
