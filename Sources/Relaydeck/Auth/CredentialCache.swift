/// Principals of credentials seen recently, by the SHA-256 of the secret, so a request does
/// not need a locked read of the store to know who sent it and what it may do (its scopes
/// ride on the principal). Exact because every change goes through this process: a deletion
/// or a change of a key's scopes forgets its entries in the same call that writes it (the
/// next request reads the row as that write left it), a recorded key use updates its entry,
/// and a COMMIT that fails forgets everything (what was read inside its transaction may be
/// gone). Only known credentials are kept (a flood of wrong secrets adds nothing), and never
/// the secret itself. With several nodes on one database a change need not go through this
/// process, so PostgreSQL's store keeps none (capacity 0): each request reads its credential.
public final class CredentialCache {
    public static let defaultCapacity = 10_000

    private var entries: [[UInt8]: Principal] = [:]
    private let capacity: Int

    public init(capacity: Int = CredentialCache.defaultCapacity) {
        self.capacity = capacity
    }

    public var count: Int { entries.count }

    func principal(for hash: [UInt8]) -> Principal? {
        entries[hash]
    }

    func remember(_ principal: Principal, for hash: [UInt8]) {
        guard capacity > 0 else { return }
        // Rarely full (one entry per live credential in use): start over rather than track age.
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[hash] = principal
    }

    /// The account's token and all of its keys.
    func forgetAccount(_ accountID: String) {
        entries = entries.filter { $0.value.accountID != accountID }
    }

    /// Every credential that acts as the key: its own secret and its grants' access tokens.
    func forgetKey(_ keyID: String) {
        entries = entries.filter { $0.value.keyID != keyID }
    }

    /// After `Keys.recordUse` committed, so the next request decides on the values stored.
    func updateKeyUse(_ keyID: String, lastUsedAt: Int64?, lastHost: String?) {
        for (hash, principal) in entries {
            guard case .key(let use) = principal, use.keyID == keyID else { continue }
            entries[hash] = .key(use.with(lastUsedAt: lastUsedAt, lastHost: lastHost))
        }
    }

    /// The access tokens of a grant revoked, or of one whose tokens changed.
    func forgetGrant(_ grantID: String) {
        entries = entries.filter { $0.value.grant?.grantID != grantID }
    }

    /// After `OAuthGrants.recordUse` committed.
    func updateGrantUse(_ grantID: String, lastUsedAt: Int64) {
        for (hash, principal) in entries {
            guard case .key(let use) = principal, use.grant?.grantID == grantID else { continue }
            entries[hash] = .key(use.with(grantUsedAt: lastUsedAt))
        }
    }

    func removeAll() {
        entries.removeAll()
    }
}
