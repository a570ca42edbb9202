import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `OAuthClients`' statements through both sessions on the same rows (the filled store, whose
/// one client `oac_1` is registered, confidential, and has the grant `ogr_1`): each answers
/// the same in both, and as the service expects.
@Suite struct OAuthClientsStatementTests {
    typealias SQL = OAuthClients.SQL
    static let document = "https://connector.example/client.json"

    /// The client of `id` as the service reads it, in one line.
    static func client(_ db: any StoreSession, _ id: String) async throws -> String {
        guard let client = try await db.firstRow(SQL.get, [.text(id)], OAuthClient.init) else { return "\(id): none" }
        return "\(client.id): \(client.kind) \(client.name) \(client.redirectURIs) \(client.authMethod.rawValue) "
            + "\(client.createdAt) \(client.lastUsedAt)"
    }

    static func secret(_ db: any StoreSession, _ id: String) async throws -> String {
        "secret of \(id): \(String(describing: try await db.firstRow(SQL.secret, [.text(id)]) { try $0.blob("secret_hash") }))"
    }

    static func expiry(_ db: any StoreSession, _ id: String) async throws -> String {
        let expiresAt = try await db.firstRow(SQL.documentExpiry, [.text(id)]) { try $0.int64("document_expires_at") }
        return "expiry of \(id): \(String(describing: expiresAt))"
    }

    @Test func registrationsReadAndTouchedAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said = [try await Self.client(db, "oac_1"), try await Self.client(db, "oac_none"),
                        try await Self.secret(db, "oac_1"), try await Self.secret(db, "oac_none")]
            try await db.begin()
            said.append("public: \(try await db.run(SQL.insert, "oac_2", "Cursor", "https://a.example/cb\nhttp://127.0.0.1:9/cb", "none", .null, 80))")
            said.append("confidential: \(try await db.run(SQL.insert, "oac_3", "Server", "https://b.example/cb", "client_secret_post", .blob([0, 0xFF, 7]), 81))")
            for id in ["oac_2", "oac_3"] {
                said.append(try await Self.client(db, id))
                said.append(try await Self.secret(db, id))
            }
            said.append("touched: \(try await db.run(SQL.touch, 90, "oac_2"))")
            said.append("touched none: \(try await db.run(SQL.touch, 90, "oac_none"))")
            said.append(try await Self.client(db, "oac_2"))
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "oac_1: registered Claude [\"https://claude.ai/cb\"] client_secret_basic 67 68", "oac_none: none",
            "secret of oac_1: Optional([5])", "secret of oac_none: nil",
            "public: 1", "confidential: 1",
            "oac_2: registered Cursor [\"https://a.example/cb\", \"http://127.0.0.1:9/cb\"] none 80 80", "secret of oac_2: nil",
            "oac_3: registered Server [\"https://b.example/cb\"] client_secret_post 81 81", "secret of oac_3: Optional([0, 255, 7])",
            "touched: 1", "touched none: 0",
            "oac_2: registered Cursor [\"https://a.example/cb\", \"http://127.0.0.1:9/cb\"] none 80 90",
        ])
        #expect(postgres == sqlite)
    }

    @Test func documentsKeptAndReadAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            let url = Self.document
            try await db.begin()
            var said = [try await Self.expiry(db, url)]
            said.append("kept: \(try await db.run(SQL.keepDocument, .text(url), "Doc", "https://c.example/cb", 91, 100))")
            said.append(try await Self.expiry(db, url))
            said.append(try await Self.client(db, url))
            // Fetched again: the copy replaced, its first sight kept.
            said.append("kept again: \(try await db.run(SQL.keepDocument, .text(url), "Doc 2", "https://c.example/cb2", 92, 200))")
            said.append(try await Self.expiry(db, url))
            said.append(try await Self.client(db, url))
            // A registered client's row is never a document's copy.
            said.append("over oac_1: \(try await db.run(SQL.keepDocument, "oac_1", "Evil", "https://evil.example/cb", 93, 300))")
            said.append(try await Self.client(db, "oac_1"))
            said.append(try await Self.expiry(db, "oac_1"))
            try await db.rollback()
            return said
        }
        let url = Self.document
        #expect(sqlite == [
            "expiry of \(url): nil", "kept: 1", "expiry of \(url): Optional(100)",
            "\(url): document Doc [\"https://c.example/cb\"] none 91 91",
            "kept again: 1", "expiry of \(url): Optional(200)",
            "\(url): document Doc 2 [\"https://c.example/cb2\"] none 91 92",
            "over oac_1: 0", "oac_1: registered Claude [\"https://claude.ai/cb\"] client_secret_basic 67 68",
            "expiry of oac_1: nil",
        ])
        #expect(postgres == sqlite)
    }

    @Test func unusedClientsRemovedAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            try await db.begin()
            try await db.run(SQL.insert, "oac_2", "Cursor", "https://a.example/cb", "none", .null, 80)
            try await db.run(SQL.insert, "oac_3", "Server", "https://b.example/cb", "none", .null, 81)
            try await db.run(SQL.insert, "oac_4", "Later", "https://b.example/cb", "none", .null, 95)
            try await db.run(SQL.keepDocument, .text(Self.document), "Doc", "https://c.example/cb", 82, 100)
            // Unused since 90: oac_1 too, but its grant keeps it; one at a time, then the rest.
            var said = ["one: \(try await db.run(SQL.deleteUnused, 90, 1))", "rest: \(try await db.run(SQL.deleteUnused, 90, 200))",
                        "again: \(try await db.run(SQL.deleteUnused, 90, 200))"]
            for id in ["oac_1", "oac_2", "oac_3", "oac_4", Self.document] {
                said.append("\(id): \(try await db.exists(SQL.get, .text(id)))")
            }
            try await db.run("DELETE FROM oauth_grants WHERE id = $1", "ogr_1")
            said.append("without its grant: \(try await db.run(SQL.deleteUnused, 90, 200))")
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "one: 1", "rest: 2", "again: 0",
            "oac_1: true", "oac_2: false", "oac_3: false", "oac_4: true", "\(Self.document): false",
            "without its grant: 1",
        ])
        #expect(postgres == sqlite)
    }
}
