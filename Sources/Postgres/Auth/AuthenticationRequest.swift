/// What the server asks for in an Authentication message (`R`).
enum AuthenticationRequest: Equatable {
    case ok
    case cleartextPassword
    case md5Password(salt: [UInt8])
    /// SASL, with the mechanisms the server offers (SCRAM-SHA-256, and its `-PLUS` over TLS).
    case sasl(mechanisms: [String])
    case saslContinue([UInt8])
    case saslFinal([UInt8])
    /// Kerberos, GSSAPI, SSPI: methods this client does not speak (see `docs/architecture.md`
    /// on why libpq is not linked).
    case unsupported(code: Int32)

    static func parse(_ reader: inout MessageReader) throws(PostgresError) -> AuthenticationRequest {
        let code = try reader.int32()
        switch code {
        case 0: return .ok
        case 3: return .cleartextPassword
        case 5: return .md5Password(salt: Array(try reader.bytes(4)))
        case 10:
            var mechanisms: [String] = []
            while true {
                let name = try reader.cString()
                if name.isEmpty { break }
                mechanisms.append(name)
            }
            return .sasl(mechanisms: mechanisms)
        case 11: return .saslContinue(Array(reader.rest()))
        case 12: return .saslFinal(Array(reader.rest()))
        default: return .unsupported(code: code)
        }
    }

    var methodName: String {
        switch self {
        case .unsupported(2): "Kerberos V5"
        case .unsupported(7), .unsupported(8): "GSSAPI"
        case .unsupported(9): "SSPI"
        case .unsupported(let code): "method \(code)"
        default: "password"
        }
    }
}
