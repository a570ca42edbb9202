import Crypto

/// A credential secret (`mca_...`, `mck_...`, and OAuth's `mco_`, `mcr_`, `mcc_`, `mcx_`). The
/// server hands it out once and keeps only its SHA-256 hash; neither the secret nor its hash is
/// ever logged. Each kind has a prefix of its own, so a leaked one is recognizable (the e2e
/// suite looks for these shapes in the server's log).
public struct Secret: Sendable {
    public enum Kind: Sendable {
        case accountToken, apiKey
        /// OAuth (issue 24): the access token a connector sends as `Bearer`, the refresh token
        /// it trades at the token endpoint, the code of one consent, a registered client's
        /// secret. Only the access token is a credential of the gate.
        case accessToken, refreshToken, authorizationCode, clientSecret

        var prefix: String {
            switch self {
            case .accountToken: "mca_"
            case .apiKey: "mck_"
            case .accessToken: "mco_"
            case .refreshToken: "mcr_"
            case .authorizationCode: "mcc_"
            case .clientSecret: "mcx_"
            }
        }
    }

    /// 43 characters of [0-9A-Za-z]: 256 bits.
    static let randomLength = 43

    public let text: String

    public static func generate(_ kind: Kind, random: any RandomSource) -> Secret {
        Secret(text: kind.prefix + random.alphanumeric(randomLength))
    }

    public var hash: [UInt8] { SHA256.hash(text) }

    /// `mck_` and the next 4 characters, as the Key object shows it.
    public var displayPrefix: String { String(text.prefix(8)) }
    public var last4: String { String(text.suffix(4)) }

    /// Which kind a presented credential claims to be, by its prefix; nil for anything else
    /// (the refresh token, a code and a client secret are never a request's credential).
    public static func kind(of presented: Substring) -> Kind? {
        // Four bytes compared as bytes: `hasPrefix` walks characters (grapheme clusters), a
        // measurable part of every request with a credential.
        var prefix: UInt32 = 0
        var count = 0
        for byte in presented.utf8.prefix(4) {
            prefix = prefix << 8 | UInt32(byte)
            count += 1
        }
        guard count == 4 else { return nil }
        switch prefix {
        case Self.accountTokenPrefix: return .accountToken
        case Self.apiKeyPrefix: return .apiKey
        case Self.accessTokenPrefix: return .accessToken
        default: return nil
        }
    }

    /// "mca_", "mck_" and "mco_" as big-endian words.
    private static let accountTokenPrefix: UInt32 = 0x6D63_615F
    private static let apiKeyPrefix: UInt32 = 0x6D63_6B5F
    private static let accessTokenPrefix: UInt32 = 0x6D63_6F5F
}
