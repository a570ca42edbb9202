/// What a request sent with an OAuth access token carries besides its key (`KeyUse.grant`):
/// which grant, the connector's name for the activity log, and what the token is good for,
/// checked on every request, cached or not (`Authenticator`).
public struct GrantUse: Sendable, Equatable {
    public let grantID: String
    /// The client's name as the person saw it at consent.
    public let clientName: String
    /// The token's audience (RFC 8707): the resource it was issued for.
    public let resource: String
    /// When the access token stops working (wall-clock milliseconds).
    public let expiresAt: Int64
    public let lastUsedAt: Int64?

    public init(grantID: String, clientName: String, resource: String, expiresAt: Int64, lastUsedAt: Int64?) {
        self.grantID = grantID
        self.clientName = clientName
        self.resource = resource
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }

    func with(lastUsedAt: Int64) -> GrantUse {
        GrantUse(grantID: grantID, clientName: clientName, resource: resource, expiresAt: expiresAt, lastUsedAt: lastUsedAt)
    }
}
