import Crypto

/// A credential secret (`mca_...` or `mck_...`). The server hands it out once and keeps
/// only its SHA-256 hash; neither the secret nor its hash is ever logged.
public struct Secret: Sendable {
    public enum Kind: Sendable {
        case accountToken, apiKey

        var prefix: String {
            switch self {
            case .accountToken: "mca_"
            case .apiKey: "mck_"
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

    /// Which kind a presented credential claims to be, by its prefix; nil for anything else.
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
        default: return nil
        }
    }

    /// "mca_" and "mck_" as big-endian words.
    private static let accountTokenPrefix: UInt32 = 0x6D63_615F
    private static let apiKeyPrefix: UInt32 = 0x6D63_6B5F
}
