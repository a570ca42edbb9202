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
}

/// An authenticated API key, with what `Keys.recordUse` needs to decide whether to write.
public struct KeyUse: Sendable, Equatable {
    public let keyID: String
    public let accountID: String
    public let lastUsedAt: Int64?
    public let lastHost: String?
}
