import COpenSSL
import Crypto

/// A passkey authenticator in software, for the tests: a fresh key made with OpenSSL, the
/// COSE key, the attestation object (`none`) and assertions it signs, with every field a
/// test may want wrong settable.
public final class SoftwareAuthenticator {
    public enum Algorithm: Sendable { case es256, ed25519 }

    public let algorithm: Algorithm
    public let credentialID: [UInt8]
    public var signCount: UInt32 = 0
    private let key: OpaquePointer

    public init(_ algorithm: Algorithm, credentialID: [UInt8] = Array(0..<16)) {
        self.algorithm = algorithm
        self.credentialID = credentialID
        let context = EVP_PKEY_CTX_new_from_name(nil, algorithm == .es256 ? "EC" : "ED25519", nil)!
        defer { EVP_PKEY_CTX_free(context) }
        precondition(EVP_PKEY_keygen_init(context) == 1)
        if algorithm == .es256 { precondition(EVP_PKEY_CTX_set_group_name(context, "P-256") == 1) }
        var made: OpaquePointer?
        precondition(EVP_PKEY_generate(context, &made) == 1)
        key = made!
    }

    deinit { EVP_PKEY_free(key) }

    /// The COSE_Key of the public key (RFC 9053), with `alg` replaceable.
    public func coseKey(alg: Int64? = nil) -> [UInt8] {
        switch algorithm {
        case .es256:
            var point = [UInt8](repeating: 0, count: 65)
            var length = 0
            precondition(EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", &point, 65, &length) == 1 && length == 65)
            return CBORWriter.map([(1, .int(2)), (3, .int(alg ?? -7)), (-1, .int(1)),
                                   (-2, .bytes(Array(point[1..<33]))), (-3, .bytes(Array(point[33..<65])))])
        case .ed25519:
            var raw = [UInt8](repeating: 0, count: 32)
            var length = 32
            precondition(EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1 && length == 32)
            return CBORWriter.map([(1, .int(1)), (3, .int(alg ?? -8)), (-1, .int(6)), (-2, .bytes(raw))])
        }
    }

    public static let up: UInt8 = 0x01, uv: UInt8 = 0x04, at: UInt8 = 0x40

    public func authenticatorData(rpID: String, flags: UInt8, counter: UInt32, attested: [UInt8]? = nil) -> [UInt8] {
        var data = SHA256.hash(rpID) + [flags]
        data += [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        if let attested { data += attested }
        return data
    }

    public static func clientData(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false) -> [UInt8] {
        let text = #"{"type":"\#(type)","challenge":"\#(Base64.encode(challenge, urlSafe: true, padded: false))","origin":"\#(origin)","crossOrigin":\#(crossOrigin)}"#
        return Array(text.utf8)
    }

    /// `attestationObject` of a registration: fmt `none`, an empty statement, the
    /// authenticator data with the attested credential.
    public func attestationObject(rpID: String, flags: UInt8 = up | uv | at, coseKey: [UInt8]? = nil, format: String = "none") -> [UInt8] {
        let attested = [UInt8](repeating: 0, count: 16) + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)]
            + credentialID + (coseKey ?? self.coseKey())
        let authData = authenticatorData(rpID: rpID, flags: flags, counter: signCount, attested: attested)
        return CBORWriter.textMap([("fmt", .text(format)), ("attStmt", .raw([0xA0])), ("authData", .bytes(authData))])
    }

    /// A signature over `authData || SHA-256(clientData)`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, algorithm == .es256 ? EVP_sha256() : nil, nil, key) == 1)
        var length = 0
        precondition(EVP_DigestSign(context, nil, &length, message, message.count) == 1)
        var signature = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(context, &signature, &length, message, message.count) == 1)
        return Array(signature.prefix(length))
    }
}

/// Just enough CBOR to write a COSE key and an attestation object.
public enum CBORWriter {
    public enum Value {
        case int(Int64), bytes([UInt8]), text(String), raw([UInt8])
    }

    public static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        switch value {
        case 0..<24: return [major << 5 | UInt8(value)]
        case 24..<256: return [major << 5 | 24, UInt8(value)]
        case 256..<65_536: return [major << 5 | 25, UInt8(value >> 8), UInt8(value & 0xFF)]
        default: return [major << 5 | 26] + (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) }
        }
    }

    public static func encode(_ value: Value) -> [UInt8] {
        switch value {
        case .int(let n): return n >= 0 ? head(0, UInt64(n)) : head(1, UInt64(-1 - n))
        case .bytes(let b): return head(2, UInt64(b.count)) + b
        case .text(let t): return head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .raw(let r): return r
        }
    }

    public static func map(_ entries: [(Int64, Value)]) -> [UInt8] {
        head(5, UInt64(entries.count)) + entries.flatMap { encode(.int($0.0)) + encode($0.1) }
    }

    public static func textMap(_ entries: [(String, Value)]) -> [UInt8] {
        head(5, UInt64(entries.count)) + entries.flatMap { encode(.text($0.0)) + encode($0.1) }
    }
}
