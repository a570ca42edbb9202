import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `OAuthGrants`' statements through both sessions on the same rows (the filled store: the
/// grant `ogr_1` of key `key_1` and client `oac_1`, its traded code `X'06'`, its access token
/// `X'07'` and its refresh token `X'08'`), in the order the service runs them: each answers
/// the same in both, and as the service expects.
@Suite struct OAuthGrantsStatementTests {
    typealias SQL = OAuthGrants.SQL

    /// The code of `hash` as `exchange` reads it, in one line.
    static func code(_ db: any StoreSession, _ hash: [UInt8]) async throws -> String {
        let found = try await db.firstRow(SQL.code, [.blob(hash)]) { row in
            "\(try row.text("client_id")) \(try row.text("account_id")) \(try row.text("key_id")) \(try row.scopes("scopes").bits) "
                + "\(try row.text("redirect_uri")) \(try row.text("code_challenge")) \(try row.text("resource")) "
                + "\(try row.int64("expires_at")) \(String(describing: try row.optionalText("grant_id")))"
        }
        return "code \(hash): \(found ?? "none")"
    }

    /// The refresh token of `hash` as `refresh` reads it (none when its key is deleted).
    static func refresh(_ db: any StoreSession, _ hash: [UInt8]) async throws -> String {
        let found = try await db.firstRow(SQL.refresh, [.blob(hash)]) { row in
            "\(try row.text("grant_id")) \(try row.text("key_id")) \(try row.text("client_id")) \(try row.scopes("scopes").bits) "
                + "\(try row.int64("expires_at")) \(String(describing: try row.optionalInt64("used_at")))"
        }
        return "refresh \(hash): \(found ?? "none")"
    }

    /// The owner of a token as `revoke` reads it.
    static func owner(_ db: any StoreSession, _ sql: String, _ hash: [UInt8]) async throws -> String {
        let found = try await db.firstRow(sql, [.blob(hash)]) { row in
            "\(try row.text("key_id")) \(try row.text("grant_id")) \(try row.text("client_id"))"
        }
        return "owner of \(hash): \(found ?? "none")"
    }

    /// The grants `list` gives, in its order.
    static func grants(_ db: any StoreSession, account: String, key: String? = nil) async throws -> String {
        let found = if let key {
            try await db.rows(SQL.listOfKey, [.text(account), .text(key)], Grant.init)
        } else {
            try await db.rows(SQL.listOfAccount, [.text(account)], Grant.init)
        }
        let lines = found.map { grant in
            "\(grant.id) \(grant.accountID) \(grant.keyID) \(grant.clientID) \(grant.clientName) \(grant.scopes.bits) "
                + "\(grant.resource) \(grant.createdAt) \(String(describing: grant.lastUsedAt))"
        }
        return "grants of \(account) \(key ?? "*"): \(lines)"
    }

    static func tokenCounts(_ db: any StoreSession) async throws -> String {
        var counts: [String] = []
        for table in ["oauth_grants", "oauth_codes", "oauth_access_tokens", "oauth_refresh_tokens"] {
            counts.append("\(table) \(try await db.count("SELECT count(*) AS n FROM \(table)"))")
        }
        return counts.joined(separator: ", ")
    }

    @Test func aConsentsCodeAndItsTradeAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said = ["oac_1: \(try await db.exists(SQL.clientExists, "oac_1"))",
                        "oac_none: \(try await db.exists(SQL.clientExists, "oac_none"))",
                        "grants of key_1: \(try await db.count(SQL.countForKey, "key_1"))",
                        "grants of key_2: \(try await db.count(SQL.countForKey, "key_2"))"]
            try await db.begin()
            said.append("code: \(try await db.run(SQL.insertCode, .blob([9]), "oac_1", "acc_1", "key_1", 5, "https://claude.ai/cb", "xyz", "https://relay.example/mcp", 100))")
            said.append(try await Self.code(db, [9]))
            // The filled store's code was traded: its grant is found, to be revoked.
            said.append(try await Self.code(db, [6]))
            said.append(try await Self.code(db, [10]))
            said.append("grant of ogr_1: \(String(describing: try await db.firstRow(SQL.grantKeyOnly, ["ogr_1"]) { try $0.text("key_id") }))")
            said.append("grant of ogr_none: \(String(describing: try await db.firstRow(SQL.grantKeyOnly, ["ogr_none"]) { try $0.text("key_id") }))")
            said.append("grant: \(try await db.run(SQL.insertGrant, "ogr_2", "acc_1", "key_1", "oac_1", "Claude", 5, "https://relay.example/mcp", 80))")
            said.append("traded: \(try await db.run(SQL.markCodeUsed, "ogr_2", .blob([9])))")
            said.append(try await Self.code(db, [9]))
            said.append("access: \(try await db.run(SQL.insertAccess, .blob([11]), "ogr_2", 5, 90))")
            said.append("refresh: \(try await db.run(SQL.insertRefresh, .blob([12]), "ogr_2", 5, 95))")
            said.append(try await Self.refresh(db, [12]))
            said.append("grants of key_1 now: \(try await db.count(SQL.countForKey, "key_1"))")
            said.append(try await Self.grants(db, account: "acc_1", key: "key_1"))
            said.append(try await Self.grants(db, account: "acc_1", key: "key_2"))
            said.append(try await Self.grants(db, account: "acc_1"))
            said.append(try await Self.grants(db, account: "acc_2"))
            try await db.rollback()
            return said
        }
        let resource = "https://relay.example/mcp"
        #expect(sqlite == [
            "oac_1: true", "oac_none: false", "grants of key_1: 1", "grants of key_2: 0",
            "code: 1",
            "code [9]: oac_1 acc_1 key_1 5 https://claude.ai/cb xyz \(resource) 100 nil",
            "code [6]: oac_1 acc_1 key_1 3 https://claude.ai/cb abc \(resource) 70 Optional(\"ogr_1\")",
            "code [10]: none",
            "grant of ogr_1: Optional(\"key_1\")", "grant of ogr_none: nil",
            "grant: 1", "traded: 1",
            "code [9]: oac_1 acc_1 key_1 5 https://claude.ai/cb xyz \(resource) 100 Optional(\"ogr_2\")",
            "access: 1", "refresh: 1",
            "refresh [12]: ogr_2 key_1 oac_1 5 95 nil",
            "grants of key_1 now: 2",
            "grants of acc_1 key_1: [\"ogr_2 acc_1 key_1 oac_1 Claude 5 \(resource) 80 nil\", "
                + "\"ogr_1 acc_1 key_1 oac_1 Claude 3 \(resource) 69 nil\"]",
            "grants of acc_1 key_2: []",
            "grants of acc_1 *: [\"ogr_2 acc_1 key_1 oac_1 Claude 5 \(resource) 80 nil\", "
                + "\"ogr_1 acc_1 key_1 oac_1 Claude 3 \(resource) 69 nil\"]",
            "grants of acc_2 *: []",
        ])
        #expect(postgres == sqlite)
    }

    @Test func aRefreshSpentReusedAndRevokedAnswersTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said = [try await Self.refresh(db, [8]), try await Self.refresh(db, [13])]
            try await db.begin()
            said.append("spent: \(try await db.run(SQL.spendRefresh, 75, .blob([8])))")
            said.append("touched: \(try await db.run(SQL.touchGrant, 75, "ogr_1"))")
            said.append("touched none: \(try await db.run(SQL.touchGrant, 75, "ogr_none"))")
            said.append(try await Self.refresh(db, [8]))
            said.append(try await Self.grants(db, account: "acc_1"))
            // Its reuse revokes the grant: its tokens go, its traded code stays.
            for sql in SQL.deleteGrant { said.append("revoked: \(try await db.run(sql, "ogr_1"))") }
            said.append(try await Self.refresh(db, [8]))
            said.append(try await Self.tokenCounts(db))
            try await db.rollback()
            // A refresh token of a deleted key is none.
            try await db.begin()
            try await db.run("UPDATE keys SET deleted_at = 1 WHERE id = $1", "key_1")
            said.append(try await Self.refresh(db, [8]))
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "refresh [8]: ogr_1 key_1 oac_1 3 72 nil", "refresh [13]: none",
            "spent: 1", "touched: 1", "touched none: 0",
            "refresh [8]: ogr_1 key_1 oac_1 3 72 Optional(75)",
            "grants of acc_1 *: [\"ogr_1 acc_1 key_1 oac_1 Claude 3 https://relay.example/mcp 69 Optional(75)\"]",
            "revoked: 1", "revoked: 1", "revoked: 1",
            "refresh [8]: none",
            "oauth_grants 0, oauth_codes 1, oauth_access_tokens 0, oauth_refresh_tokens 0",
            "refresh [8]: none",
        ])
        #expect(postgres == sqlite)
    }

    @Test func tokensRevokedByTheirOwnerAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said = [try await Self.owner(db, SQL.refreshOwner, [8]), try await Self.owner(db, SQL.accessOwner, [7]),
                        try await Self.owner(db, SQL.refreshOwner, [7]), try await Self.owner(db, SQL.accessOwner, [8])]
            try await db.begin()
            said.append("access: \(try await db.run(SQL.deleteAccess, .blob([7])))")
            said.append("access again: \(try await db.run(SQL.deleteAccess, .blob([7])))")
            said.append(try await Self.owner(db, SQL.accessOwner, [7]))
            said.append(try await Self.tokenCounts(db))
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "owner of [8]: key_1 ogr_1 oac_1", "owner of [7]: key_1 ogr_1 oac_1",
            "owner of [7]: none", "owner of [8]: none",
            "access: 1", "access again: 0", "owner of [7]: none",
            "oauth_grants 1, oauth_codes 1, oauth_access_tokens 0, oauth_refresh_tokens 1",
        ])
        #expect(postgres == sqlite)
    }

    @Test func aKeysAndAnAccountsGrantsRemovedAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            var said: [String] = []
            for (grant, account) in [("ogr_1", "acc_1"), ("ogr_1", "acc_2"), ("ogr_none", "acc_1")] {
                let key = try await db.firstRow(SQL.grantKey, [.text(grant), .text(account)]) { try $0.text("key_id") }
                said.append("key of \(grant) for \(account): \(String(describing: key))")
            }
            for key in ["key_1", "key_2"] {
                said.append("of \(key): \(try await db.rows(SQL.grantsOfKey, [.text(key)]) { try $0.text("id") })")
            }
            for account in ["acc_1", "acc_2"] {
                said.append("of \(account): \(try await db.rows(SQL.grantsOfAccount, [.text(account)]) { try $0.text("id") })")
            }
            // A key deleted: its grants, then its codes.
            try await db.begin()
            for sql in SQL.deleteGrant { said.append("revoked: \(try await db.run(sql, "ogr_1"))") }
            said.append("codes of key_2: \(try await db.run(SQL.deleteCodesOfKey, "key_2"))")
            said.append("codes of key_1: \(try await db.run(SQL.deleteCodesOfKey, "key_1"))")
            said.append(try await Self.tokenCounts(db))
            try await db.rollback()
            // An account deleted: the same, by account.
            try await db.begin()
            said.append("codes of acc_2: \(try await db.run(SQL.deleteCodesOfAccount, "acc_2"))")
            said.append("codes of acc_1: \(try await db.run(SQL.deleteCodesOfAccount, "acc_1"))")
            try await db.rollback()
            return said
        }
        #expect(sqlite == [
            "key of ogr_1 for acc_1: Optional(\"key_1\")", "key of ogr_1 for acc_2: nil", "key of ogr_none for acc_1: nil",
            "of key_1: [\"ogr_1\"]", "of key_2: []", "of acc_1: [\"ogr_1\"]", "of acc_2: []",
            "revoked: 1", "revoked: 1", "revoked: 1", "codes of key_2: 0", "codes of key_1: 1",
            "oauth_grants 0, oauth_codes 0, oauth_access_tokens 0, oauth_refresh_tokens 0",
            "codes of acc_2: 0", "codes of acc_1: 1",
        ])
        #expect(postgres == sqlite)
    }
}
