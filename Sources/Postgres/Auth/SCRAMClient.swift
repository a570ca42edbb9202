import Crypto

/// The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677), and of SCRAM-SHA-256-PLUS with the
/// `tls-server-end-point` channel binding (RFC 5929) when the session is TLS and the server
/// offers it. A value: `clientFirst`, then `clientFinal` with the server's first message,
/// then `verify` with its final one, which proves the server knew the password's keys too.
///
/// The password goes in as its UTF-8 bytes. RFC 5802 asks for SASLprep (RFC 4013), which is
/// the identity on printable ASCII and which PostgreSQL skips for a password it cannot
/// prepare; a password with other characters must already be in NFKC form.
struct SCRAMClient {
    enum ChannelBinding: Equatable {
        /// No TLS: `n`.
        case none
        /// TLS, but the server offers no `-PLUS` (or the certificate's hash is unknown): `y`,
        /// which tells a server that does offer it that someone took it out of the list.
        case notOffered
        /// `p=tls-server-end-point` with the certificate's hash.
        case serverEndPoint([UInt8])
    }

    let mechanism: String
    private let password: [UInt8]
    private let gs2Header: String
    private let bindingData: [UInt8]
    private let clientFirstBare: String
    private let clientNonce: String
    /// What the server's final message must carry; set by `clientFinal`.
    private var expectedServerSignature: [UInt8]?

    /// `user`: empty for PostgreSQL, which takes the start-up message's user instead.
    init(user: String = "", password: [UInt8], nonce: String, binding: ChannelBinding) {
        self.password = password
        clientNonce = nonce
        switch binding {
        case .none:
            (mechanism, gs2Header, bindingData) = ("SCRAM-SHA-256", "n,,", [])
        case .notOffered:
            (mechanism, gs2Header, bindingData) = ("SCRAM-SHA-256", "y,,", [])
        case .serverEndPoint(let hash):
            (mechanism, gs2Header, bindingData) = ("SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,", hash)
        }
        let name = user.replacing("=", with: "=3D").replacing(",", with: "=2C")
        clientFirstBare = "n=\(name),r=\(nonce)"
    }

    /// A nonce of 18 random bytes in base64: printable, and never a comma.
    static func makeNonce() -> String {
        Base64.encode(SecureRandom.bytes(18))
    }

    var clientFirst: [UInt8] { Array((gs2Header + clientFirstBare).utf8) }

    /// The client's final message for the server's first (`r=...,s=...,i=...`). Refused: a
    /// nonce that does not extend ours, a salt that is not base64, an iteration count out of
    /// 1...`maxIterations`, a mandatory extension (`m=`).
    mutating func clientFinal(serverFirst: [UInt8], maxIterations: Int) throws(PostgresError) -> [UInt8] {
        guard let text = String(validating: serverFirst, as: UTF8.self) else { throw Self.refused("is not UTF-8") }
        let attributes = Self.attributes(text)
        if attributes["m"] != nil { throw Self.refused("asks for an extension this client does not know") }
        guard let nonce = attributes["r"], nonce.hasPrefix(clientNonce), nonce.utf8.count > clientNonce.utf8.count else {
            throw Self.refused("does not extend the client's nonce")
        }
        guard let saltText = attributes["s"], let salt = Base64.decode(saltText), !salt.isEmpty else {
            throw Self.refused("has no salt in base64")
        }
        guard let countText = attributes["i"], let iterations = Int(countText), iterations >= 1 else {
            throw Self.refused("has no iteration count")
        }
        guard iterations <= maxIterations else {
            throw Self.refused("asks for \(iterations) iterations; this client does at most \(maxIterations)")
        }
        let channel = Base64.encode(Array(gs2Header.utf8) + bindingData)
        let withoutProof = "c=\(channel),r=\(nonce)"
        let authMessage = Array("\(clientFirstBare),\(text),\(withoutProof)".utf8)
        let salted = PBKDF2.sha256(password: password, salt: salt, iterations: iterations)
        let clientKey = HMAC.sha256(key: salted, message: Array("Client Key".utf8))
        let clientSignature = HMAC.sha256(key: SHA256.hash(clientKey), message: authMessage)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMAC.sha256(key: salted, message: Array("Server Key".utf8))
        expectedServerSignature = HMAC.sha256(key: serverKey, message: authMessage)
        return Array("\(withoutProof),p=\(Base64.encode(proof))".utf8)
    }

    /// Checks the server's final message (`v=...`): a server that does not know the
    /// password's keys cannot write it, so one that impersonates the database fails here.
    func verify(serverFinal: [UInt8]) throws(PostgresError) {
        guard let expected = expectedServerSignature else { throw Self.refused("came before the client's final message") }
        let attributes = Self.attributes(String(decoding: serverFinal, as: UTF8.self))
        if let error = attributes["e"] { throw PostgresError(.authentication, "the server ended SCRAM with the error \(error)") }
        guard let text = attributes["v"], let signature = Base64.decode(text), constantTimeEquals(signature, expected) else {
            throw PostgresError(.authentication, "the server's SCRAM signature is wrong: it does not know this password")
        }
    }

    /// `a=value,b=value`: each attribute by its letter (values may hold `=`).
    private static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for part in text.split(separator: ",") {
            guard let equals = part.firstIndex(of: "="), part.distance(from: part.startIndex, to: equals) == 1 else { continue }
            let key = String(part[..<equals])
            if result[key] == nil { result[key] = String(part[part.index(after: equals)...]) }
        }
        return result
    }

    private static func refused(_ what: String) -> PostgresError {
        PostgresError(.authentication, "the server's SCRAM message \(what)")
    }
}
