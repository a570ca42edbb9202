import Clock
import Crypto

/// The provider token (JWT) every request carries in `authorization: bearer ...`: header
/// `{"alg":"ES256","kid":KEY_ID}`, claims `{"iss":TEAM_ID,"iat":SECONDS}`, base64url without
/// padding, the raw 64-byte signature. APNs wants one token reused for 20 to 60 minutes
/// (a new one more often than every 20 minutes is `TooManyProviderTokenUpdates`, one older
/// than 60 `ExpiredProviderToken`), so one is made and kept until `lifetime` passes or APNs
/// calls it expired. The token is a credential: never logged.
final class ProviderToken {
    private let signer: P256.PrivateKey
    private let teamID: String
    private let keyID: String
    private let clock: any Clock
    let lifetime: TimeSpan
    private var current: (token: String, madeAt: Instant)?

    init(signer: P256.PrivateKey, teamID: String, keyID: String, clock: any Clock, lifetime: TimeSpan) {
        self.signer = signer
        self.teamID = teamID
        self.keyID = keyID
        self.clock = clock
        self.lifetime = lifetime
    }

    /// The token to send now: the kept one while it is younger than `lifetime`, else a new
    /// one. Nil only when signing fails.
    func token() -> String? {
        let now = clock.now
        if let current, now - current.madeAt < lifetime {
            return current.token
        }
        guard let made = make(issuedAt: clock.wallMillis / 1000) else { return nil }
        current = (made, now)
        return made
    }

    /// APNs answered `ExpiredProviderToken` to a request that carried `used`: the next
    /// `token()` makes a new one. Requests that were sent with the same old token and come
    /// back later renew nothing more.
    func expire(_ used: String) {
        if current?.token == used {
            current = nil
        }
    }

    func make(issuedAt seconds: Int64) -> String? {
        // Both objects are written by hand: the IDs were checked to be [A-Z0-9] (see
        // APNsConfiguration), so nothing in them needs escaping.
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(seconds)}"#
        let signingInput = Base64.encode(Array(header.utf8), urlSafe: true, padded: false)
            + "." + Base64.encode(Array(claims.utf8), urlSafe: true, padded: false)
        guard let signature = signer.signature(for: Array(signingInput.utf8)) else { return nil }
        return signingInput + "." + Base64.encode(signature, urlSafe: true, padded: false)
    }
}
