import Crypto

/// Proof Key for Code Exchange (RFC 7636), S256 only (OAuth 2.1 4.1.1; `plain` would let a
/// code stolen with its request be traded).
public enum PKCE {
    /// A verifier: 43 to 128 of RFC 7636's unreserved characters.
    public static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy(isUnreserved)
    }

    /// An S256 challenge: the base64url (no padding) of 32 bytes, 43 characters.
    public static func isChallenge(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy { isUnreserved($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "~") }
    }

    /// Whether `verifier` is the one `challenge` was made from. The challenge is not secret
    /// (it travelled in the browser's address bar), but the compare is constant-time anyway.
    public static func verifies(_ verifier: String, challenge: String) -> Bool {
        guard isVerifier(verifier) else { return false }
        let made = Base64.encode(SHA256.hash(verifier), urlSafe: true, padded: false)
        return constantTimeEquals(Array(made.utf8), Array(challenge.utf8))
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
