import Clock
import SQLite

/// Client ID Metadata Documents (the IETF draft the MCP specification adopts): a client whose
/// `client_id` is an `https:` URL describes itself in the document at that URL. The API fetches
/// it; the domain keeps the copy, with how long it may be used before it is fetched again (its
/// HTTP caching), as a client row of kind `document` (always public: PKCE is its proof).
extension OAuthClients {
    /// Keeps the copy of a document just fetched, in place of any older one; `expiresAt` is
    /// when it must be fetched again (now, for a document that may not be cached: it still
    /// serves the consent and the token request of the authorization it was fetched for).
    public func keepDocument(url: String, name: CheckedText, redirectURIs: [String], expiresAt: Int64) async throws -> OAuthClient {
        let now = clock.wallMillis
        let client = OAuthClient(id: url, kind: .document, name: name.value, redirectURIs: redirectURIs, authMethod: .none,
                                 createdAt: now, lastUsedAt: now)
        _ = try await store.writing { db in
            try await db.run(SQL.keepDocument, .text(url), .text(name.value), .text(redirectURIs.joined(separator: "\n")),
                             .integer(now), .integer(expiresAt))
        }
        return client
    }

    /// Whether the copy of the document at `url` may still be used without fetching it again.
    public func documentIsFresh(url: String) async throws -> Bool {
        let now = clock.wallMillis
        return try await store.reading { db in
            try await db.firstRow(SQL.documentExpiry, [.text(url)]) { try $0.int64("document_expires_at") > now } ?? false
        }
    }
}

extension OAuthClients.SQL {
    /// A registered client's ID (`oac_...`) is never a URL, so only a document's row is replaced.
    /// The row kept is named in the update's condition: PostgreSQL would not know whose `kind`
    /// a bare one is, the row kept's or `excluded`'s.
    static let keepDocument = """
        INSERT INTO oauth_clients (id, kind, name, redirect_uris, auth_method, secret_hash, created_at, last_used_at, \
        document_expires_at) VALUES ($1, 'document', $2, $3, 'none', NULL, $4, $4, $5) \
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, \
        last_used_at = excluded.last_used_at, document_expires_at = excluded.document_expires_at \
        WHERE oauth_clients.kind = 'document'
        """
    static let documentExpiry = "SELECT document_expires_at FROM oauth_clients WHERE id = $1 AND kind = 'document'"
}
