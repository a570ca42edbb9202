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

    /// The rate-limit bucket of the credential.
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
/// needs to know which of the two sent the request.
public struct KeyUse: Sendable, Equatable {
    public let keyID: String
    public let accountID: String
    public let lastUsedAt: Int64?
    public let lastHost: String?
    public let scopes: ScopeSet

    public init(keyID: String, accountID: String, lastUsedAt: Int64?, lastHost: String?, scopes: ScopeSet) {
        self.keyID = keyID
        self.accountID = accountID
        self.lastUsedAt = lastUsedAt
        self.lastHost = lastHost
        self.scopes = scopes
    }
}
