/// A client of the authorization server (a connector): registered through RFC 7591, or known
/// by the URL of its metadata document (the Client ID Metadata Document draft), whose copy is
/// kept here while its HTTP caching allows.
public struct OAuthClient: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case registered
        case document
    }

    /// How the client proves itself at the token endpoint (RFC 7591 2,
    /// `token_endpoint_auth_method`). A public client (`none`) proves nothing but PKCE; a
    /// metadata document's client is always public here.
    public enum AuthMethod: String, Sendable, CaseIterable {
        case none
        case clientSecretPost = "client_secret_post"
        case clientSecretBasic = "client_secret_basic"
    }

    public let id: String
    public let kind: Kind
    public let name: String
    /// Compared exactly (OAuth 2.1, 2.3.1): no prefix, no normalization.
    public let redirectURIs: [String]
    public let authMethod: AuthMethod
    public let createdAt: Int64
    public let lastUsedAt: Int64

    public init(id: String, kind: Kind, name: String, redirectURIs: [String], authMethod: AuthMethod, createdAt: Int64,
                lastUsedAt: Int64) {
        self.id = id
        self.kind = kind
        self.name = name
        self.redirectURIs = redirectURIs
        self.authMethod = authMethod
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    init(row: any StoreRow) throws {
        guard let kind = Kind(rawValue: try row.text("kind")),
              let method = AuthMethod(rawValue: try row.text("auth_method")) else {
            // A defect of the store in either dialect (the schema's CHECKs allow neither).
            throw StoreError.failure("an oauth_clients row has an unknown kind or method")
        }
        self.init(id: try row.text("id"), kind: kind, name: try row.text("name"),
                  redirectURIs: try row.text("redirect_uris").split(separator: "\n").map(String.init),
                  authMethod: method, createdAt: try row.int64("created_at"), lastUsedAt: try row.int64("last_used_at"))
    }
}
