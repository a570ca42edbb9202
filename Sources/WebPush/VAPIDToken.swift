import Clock
import Crypto
import JSON

/// The `Authorization` of a push request (RFC 8292): `vapid t=<JWT>, k=<public key>`, where
/// the JWT is ES256 over `{"typ":"JWT","alg":"ES256"}` and `{"aud", "exp", "sub"}`: `aud` the
/// push service's origin, `exp` at most `lifetime` ahead (push services refuse more than 24 h),
/// `sub` the contact (`mailto:` or `https:`). One token per origin is kept and reused until
/// less than `renewBefore` of it is left. The token is a credential: never logged.
public final class VAPIDToken {
    private let key: P256.PrivateKey
    private let subject: String
    private let clock: any Clock
    private let lifetime: Int64
    private let renewBefore: Int64
    /// The base64url public key of `k=`.
    public let publicKey: String
    private var kept: [String: (header: String, expires: Int64)] = [:]
    /// How many origins keep a token; an account can add subscriptions of any origin, so the
    /// table is bounded and emptied when full.
    static let keptOrigins = 64

    public init(key: P256.PrivateKey, subject: String, clock: any Clock, lifetimeSeconds: Int64 = 12 * 3600, renewBeforeSeconds: Int64 = 3600) {
        self.key = key
        self.subject = subject
        self.clock = clock
        lifetime = lifetimeSeconds
        renewBefore = renewBeforeSeconds
        publicKey = Base64.encode(key.publicKey, urlSafe: true, padded: false)
    }

    /// How many origins have a kept token.
    var keptCount: Int { kept.count }

    /// The header for a request to `origin` (`https://host[:port]`); nil only if signing fails.
    public func authorization(for origin: String) -> String? {
        let now = clock.wallMillis / 1000
        if let current = kept[origin], current.expires - now > renewBefore {
            return current.header
        }
        let expires = now + lifetime
        guard let token = token(audience: origin, expires: expires) else { return nil }
        if kept.count >= Self.keptOrigins { kept.removeAll(keepingCapacity: true) }
        let header = "vapid t=\(token), k=\(publicKey)"
        kept[origin] = (header, expires)
        return header
    }

    func token(audience: String, expires: Int64) -> String? {
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        var claims = JSONWriter()
        claims.beginObject()
        claims.key("aud"); claims.string(audience)
        claims.key("exp"); claims.int(expires)
        claims.key("sub"); claims.string(subject)
        claims.endObject()
        let signingInput = Base64.encode(Array(header.utf8), urlSafe: true, padded: false)
            + "." + Base64.encode(claims.bytes, urlSafe: true, padded: false)
        guard let signature = key.signature(for: Array(signingInput.utf8)) else { return nil }
        return signingInput + "." + Base64.encode(signature, urlSafe: true, padded: false)
    }
}
