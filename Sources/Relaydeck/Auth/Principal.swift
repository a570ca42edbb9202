/// Who a request speaks for, once its credential checked out.
public enum Principal: Sendable, Equatable {
    case account(accountID: String)
    case key(KeyUse)

    public var accountID: String {
        switch self {
        case .account(let id): id
        case .key(let use): use.accountID
        }
    }

    /// The key's ID when an API key sent the request.
    public var keyID: String? {
        if case .key(let use) = self { return use.keyID }
        return nil
    }

    /// The OAuth grant that sent the request, if one did.
    public var grant: GrantUse? {
        if case .key(let use) = self { return use.grant }
        return nil
    }

    /// The rate-limit bucket of the credential: a grant acts as its key, so it shares the
    /// key's (one agent's budget, however it signed in).
    public var credentialID: String {
        switch self {
        case .account(let id): id
        case .key(let use): use.keyID
        }
    }

    /// What the credential may do: the account token everything, a key what it holds.
    public var scopes: ScopeSet {
        switch self {
        case .account: .all
        case .key(let use): use.scopes
        }
    }
}

/// An authenticated API key, with what `Keys.recordUse` needs to decide whether to write, and
/// the scopes every check reads (so no check pays a read of the store).
///
/// `scopes` is the effective set of the credential that acts as the key: for an API key, the
/// key's own; for a credential that will act on a key's behalf with scopes of its own (an
/// OAuth grant), the intersection of both (`ScopeSet.intersection`). Nothing downstream
/// needs to know which of the two sent the request; what does (the activity log's client, the
/// grant's last use, the token's expiry and audience) reads `grant`.
public struct KeyUse: Sendable, Equatable {
    public let keyID: String
    public let accountID: String
    public let lastUsedAt: Int64?
    public let lastHost: String?
    public let scopes: ScopeSet
    /// The OAuth grant whose access token sent the request; nil for the key's own secret.
    public let grant: GrantUse?

    public init(keyID: String, accountID: String, lastUsedAt: Int64?, lastHost: String?, scopes: ScopeSet,
                grant: GrantUse? = nil) {
        self.keyID = keyID
        self.accountID = accountID
        self.lastUsedAt = lastUsedAt
        self.lastHost = lastHost
        self.scopes = scopes
        self.grant = grant
    }

    /// The same use with the key's use as `Keys.recordUse` left it.
    func with(lastUsedAt: Int64?, lastHost: String?) -> KeyUse {
        KeyUse(keyID: keyID, accountID: accountID, lastUsedAt: lastUsedAt, lastHost: lastHost, scopes: scopes, grant: grant)
    }

    /// The same use with the grant's last use as `OAuthGrants.recordUse` left it.
    func with(grantUsedAt: Int64) -> KeyUse {
        KeyUse(keyID: keyID, accountID: accountID, lastUsedAt: lastUsedAt, lastHost: lastHost, scopes: scopes,
               grant: grant?.with(lastUsedAt: grantUsedAt))
    }
}
