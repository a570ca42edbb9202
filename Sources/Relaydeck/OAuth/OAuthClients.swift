import Clock
import Crypto
import SQLite

/// The clients of the authorization server: registered ones (RFC 7591) and the copies of
/// metadata documents. A registered client that nothing used for `idleMillis` and that has no
/// grant left is removed by `Retention` (`SQL.deleteUnused`). Written against `StoreSession`:
/// the same code on SQLite and on PostgreSQL (issue 25).
public final class OAuthClients {
    /// RFC 7591 registrations unused this long, with no grant, go (issue 24: 30 days).
    public static let idleMillis: Int64 = 30 * 86_400_000
    /// The most redirect URIs one client may name.
    public static let maxRedirectURIs = 10
    /// `last_used_at` is written once an hour at most.
    static let touchIntervalMillis: Int64 = 3_600_000

    let store: any SessionStore
    let clock: any Clock
    private let random: any RandomSource

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource) {
        self.store = store
        self.clock = clock
        self.random = random
    }

    /// Registers a client (RFC 7591 3.1). A confidential one (`client_secret_*`) gets a secret,
    /// which exists only in the answer. The redirect URIs were checked by `RedirectURI`.
    public func register(name: CheckedText, redirectURIs: [String], authMethod: OAuthClient.AuthMethod)
        async throws -> (client: OAuthClient, secret: Secret?) {
        let now = clock.wallMillis
        let secret = authMethod == .none ? nil : Secret.generate(.clientSecret, random: random)
        let client = OAuthClient(id: Identifier.make("oac_", millis: now, random: random), kind: .registered,
                                 name: name.value, redirectURIs: redirectURIs, authMethod: authMethod, createdAt: now,
                                 lastUsedAt: now)
        _ = try await store.writing { db in
            try await db.run(SQL.insert, .text(client.id), .text(client.name), .text(redirectURIs.joined(separator: "\n")),
                             .text(authMethod.rawValue), secret.map { .blob($0.hash) } ?? .null, .integer(now))
        }
        return (client, secret)
    }

    /// The client of `id`, if it is known.
    public func get(_ id: String) async throws -> OAuthClient? {
        guard id.utf8.count <= RedirectURI.maxBytes else { return nil }
        return try await store.reading { db in try await db.firstRow(SQL.get, [.text(id)], OAuthClient.init) }
    }

    /// The client of a token or revocation request, once it proved itself (RFC 6749 2.3): a
    /// public client by its ID alone (PKCE proves the rest), a confidential one with its
    /// secret. Notes the use, once an hour at most.
    public func authenticate(id: String, secret: String?) async throws -> OAuthClient {
        guard let client = try await get(id) else { throw OAuthRefusal.clientUnknown }
        switch (client.authMethod, secret) {
        case (.none, nil):
            break
        case (.none, _?), (.clientSecretPost, nil), (.clientSecretBasic, nil):
            throw OAuthRefusal.clientAuthMismatch
        case (_, let secret?):
            let stored = try await store.reading { db in
                try await db.firstRow(SQL.secret, [.text(id)]) { try $0.blob("secret_hash") }
            }
            guard let stored, constantTimeEquals(stored, SHA256.hash(secret)) else {
                throw OAuthRefusal.clientSecretWrong
            }
        }
        let now = clock.wallMillis
        if now - client.lastUsedAt >= Self.touchIntervalMillis {
            _ = try await store.writing { db in try await db.run(SQL.touch, .integer(now), .text(id)) }
        }
        return client
    }

    /// Written for both stores (`$N`, each first in order: `StoreSession`).
    enum SQL {
        /// A registration counts as used when it is made: `$6` is its creation and its last use.
        static let insert = """
            INSERT INTO oauth_clients (id, kind, name, redirect_uris, auth_method, secret_hash, created_at, last_used_at, \
            document_expires_at) VALUES ($1, 'registered', $2, $3, $4, $5, $6, $6, NULL)
            """
        static let get = """
            SELECT id, kind, name, redirect_uris, auth_method, created_at, last_used_at FROM oauth_clients WHERE id = $1
            """
        static let secret = "SELECT secret_hash FROM oauth_clients WHERE id = $1 AND secret_hash IS NOT NULL"
        static let touch = "UPDATE oauth_clients SET last_used_at = $1 WHERE id = $2"
        /// `Retention`'s batch: at most `$2` clients unused since `$1` with no grant left (a
        /// document's copy too).
        static let deleteUnused = """
            DELETE FROM oauth_clients WHERE id IN (SELECT c.id FROM oauth_clients c WHERE c.last_used_at <= $1 \
            AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id) LIMIT $2)
            """
    }
}
