/// One consent: a connector (an OAuth client) acting as one key of the account, with the
/// scopes the person chose. Its requests are the key's, with no more than both allow
/// (`KeyUse.scopes`); it ends when the person removes it, when its key goes, when a used code
/// or refresh token of it comes back, or 30 days after its last refresh.
public struct Grant: Sendable, Equatable {
    public let id: String
    public let accountID: String
    public let keyID: String
    public let clientID: String
    /// The client's name as the person saw it at consent.
    public let clientName: String
    public let scopes: ScopeSet
    /// The resource its tokens are for (RFC 8707): `PUBLIC_URL/mcp`.
    public let resource: String
    public let createdAt: Int64
    public let lastUsedAt: Int64?

    init(row: any StoreRow) throws {
        id = try row.text("id")
        accountID = try row.text("account_id")
        keyID = try row.text("key_id")
        clientID = try row.text("client_id")
        clientName = try row.text("client_name")
        scopes = try row.scopes("scopes")
        resource = try row.text("resource")
        createdAt = try row.int64("created_at")
        lastUsedAt = try row.optionalInt64("last_used_at")
    }
}
