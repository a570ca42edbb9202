import Crypto

/// The start-up's authentication exchange as a value: each Authentication message from the
/// server goes in, and out comes the message to send, or "done". It speaks `trust` (the
/// server says OK at once), cleartext password, MD5 and SCRAM-SHA-256 (with `-PLUS` over
/// TLS); Kerberos, GSSAPI and SSPI are refused.
struct Authenticator {
    enum Step: Equatable {
        case send([UInt8])
        case done
    }

    private enum State {
        case waiting
        case scramFirstSent(SCRAMClient)
        case scramFinalSent(SCRAMClient)
        case scramVerified
    }

    let user: String
    let password: String?
    /// The TLS session's certificate hash, for channel binding; nil over plain TCP.
    let serverEndPointHash: [UInt8]?
    let isTLS: Bool
    let maxIterations: Int
    let makeNonce: () -> String
    private var state = State.waiting

    init(user: String, password: String?, isTLS: Bool, serverEndPointHash: [UInt8]?, maxIterations: Int,
         makeNonce: @escaping () -> String = SCRAMClient.makeNonce) {
        self.user = user
        self.password = password
        self.isTLS = isTLS
        self.serverEndPointHash = serverEndPointHash
        self.maxIterations = maxIterations
        self.makeNonce = makeNonce
    }

    mutating func step(_ request: AuthenticationRequest) throws(PostgresError) -> Step {
        switch (request, state) {
        case (.ok, .waiting), (.ok, .scramVerified):
            return .done
        case (.ok, _):
            // A server that skips SCRAM's last step has not shown it knows the password: a
            // stand-in would do exactly that.
            throw PostgresError(.authentication, "the server ended SCRAM without proving it knows the password")
        case (.cleartextPassword, .waiting):
            var writer = MessageWriter()
            writer.password(Array(try requirePassword().utf8))
            return .send(writer.bytes)
        case (.md5Password(let salt), .waiting):
            // md5 + hex(MD5(hex(MD5(password + user)) + salt))
            let inner = Hex.encode(MD5.hash(Array((try requirePassword() + user).utf8)))
            let outer = "md5" + Hex.encode(MD5.hash(Array(inner.utf8) + salt))
            var writer = MessageWriter()
            writer.password(Array(outer.utf8))
            return .send(writer.bytes)
        case (.sasl(let mechanisms), .waiting):
            return try startSCRAM(mechanisms)
        case (.saslContinue(let data), .scramFirstSent(var client)):
            let final = try client.clientFinal(serverFirst: data, maxIterations: maxIterations)
            state = .scramFinalSent(client)
            var writer = MessageWriter()
            writer.saslResponse(final)
            return .send(writer.bytes)
        case (.saslFinal(let data), .scramFinalSent(let client)):
            try client.verify(serverFinal: data)
            state = .scramVerified
            // AuthenticationOk follows; nothing to send.
            return .send([])
        case (.unsupported, _):
            throw PostgresError(.authentication, "the server asks for \(request.methodName), which this client does not speak; "
                + "use scram-sha-256 in pg_hba.conf")
        default:
            throw PostgresError(.authentication, "the server's authentication messages came out of order")
        }
    }

    private func requirePassword() throws(PostgresError) -> String {
        guard let password else {
            throw PostgresError(.authentication, "the server asks for a password and the settings give none")
        }
        return password
    }

    private mutating func startSCRAM(_ mechanisms: [String]) throws(PostgresError) -> Step {
        let password = try requirePassword()
        let binding: SCRAMClient.ChannelBinding
        if isTLS, let hash = serverEndPointHash, mechanisms.contains("SCRAM-SHA-256-PLUS") {
            binding = .serverEndPoint(hash)
        } else if mechanisms.contains("SCRAM-SHA-256") {
            binding = isTLS && serverEndPointHash != nil ? .notOffered : .none
        } else {
            throw PostgresError(.authentication, "the server offers SASL mechanisms this client does not speak: "
                + mechanisms.joined(separator: ", "))
        }
        let client = SCRAMClient(password: Array(password.utf8), nonce: makeNonce(), binding: binding)
        state = .scramFirstSent(client)
        var writer = MessageWriter()
        writer.saslInitialResponse(mechanism: client.mechanism, client.clientFirst)
        return .send(writer.bytes)
    }
}
