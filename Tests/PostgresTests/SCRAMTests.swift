import Crypto
import Testing
@testable import Postgres

/// SCRAM-SHA-256 against RFC 7677's example (section 3), and what a client must refuse from
/// a server that does not play by RFC 5802.
@Suite struct SCRAMTests {
    static let serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"

    func rfcClient() -> SCRAMClient {
        SCRAMClient(user: "user", password: Array("pencil".utf8), nonce: "rOprNGfwEbeRWgbNEkqO", binding: .none)
    }

    @Test func rfc7677Example() throws {
        var client = rfcClient()
        #expect(String(decoding: client.clientFirst, as: UTF8.self) == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
        let final = try client.clientFinal(serverFirst: Array(Self.serverFirst.utf8), maxIterations: 4096)
        #expect(String(decoding: final, as: UTF8.self)
            == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        try client.verify(serverFinal: Array("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8))
    }

    @Test func aWrongServerSignatureIsRefused() throws {
        var client = rfcClient()
        _ = try client.clientFinal(serverFirst: Array(Self.serverFirst.utf8), maxIterations: 4096)
        #expect(throws: PostgresError(.authentication, "the server's SCRAM signature is wrong: it does not know this password")) {
            try client.verify(serverFinal: Array("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8))
        }
    }

    @Test func aNonceThatDoesNotExtendOursIsRefused() {
        var client = rfcClient()
        #expect(throws: PostgresError(.authentication, "the server's SCRAM message does not extend the client's nonce")) {
            try client.clientFinal(serverFirst: Array("r=someoneElse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".utf8), maxIterations: 4096)
        }
        #expect(throws: PostgresError(.authentication, "the server's SCRAM message does not extend the client's nonce")) {
            try client.clientFinal(serverFirst: Array("r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".utf8), maxIterations: 4096)
        }
    }

    @Test func anIterationCountOverTheBoundIsRefusedBeforeAnyWork() {
        var client = rfcClient()
        let first = "r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=2147483647"
        #expect(throws: PostgresError(.authentication,
                                      "the server's SCRAM message asks for 2147483647 iterations; this client does at most 100000")) {
            try client.clientFinal(serverFirst: Array(first.utf8), maxIterations: 100_000)
        }
    }

    @Test func aMandatoryExtensionIsRefused() {
        var client = rfcClient()
        #expect(throws: PostgresError(.authentication, "the server's SCRAM message asks for an extension this client does not know")) {
            try client.clientFinal(serverFirst: Array("m=x,r=rOprNGfwEbeRWgbNEkqOx,s=AAAA,i=1".utf8), maxIterations: 10)
        }
    }

    @Test func channelBindingSendsTheCertificateHash() throws {
        let hash: [UInt8] = Array(repeating: 0xAB, count: 32)
        var client = SCRAMClient(password: Array("pencil".utf8), nonce: "abc", binding: .serverEndPoint(hash))
        #expect(client.mechanism == "SCRAM-SHA-256-PLUS")
        #expect(String(decoding: client.clientFirst, as: UTF8.self) == "p=tls-server-end-point,,n=,r=abc")
        let final = String(decoding: try client.clientFinal(serverFirst: Array("r=abcdef,s=AAAA,i=1".utf8), maxIterations: 10), as: UTF8.self)
        let expected = Base64.encode(Array("p=tls-server-end-point,,".utf8) + hash)
        #expect(final.hasPrefix("c=\(expected),r=abcdef,p="))
    }

    @Test func theAuthenticatorPicksPlusOnlyOverTLSWithAHash() throws {
        var plain = Authenticator(user: "u", password: "pw", isTLS: false, serverEndPointHash: nil, maxIterations: 10) { "n1" }
        #expect(try plain.step(.sasl(mechanisms: ["SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"])) == .send(initial("SCRAM-SHA-256", "n,,n=,r=n1")))
        var tls = Authenticator(user: "u", password: "pw", isTLS: true, serverEndPointHash: [1, 2], maxIterations: 10) { "n2" }
        #expect(try tls.step(.sasl(mechanisms: ["SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"]))
            == .send(initial("SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=n2")))
        var notOffered = Authenticator(user: "u", password: "pw", isTLS: true, serverEndPointHash: [1, 2], maxIterations: 10) { "n3" }
        #expect(try notOffered.step(.sasl(mechanisms: ["SCRAM-SHA-256"])) == .send(initial("SCRAM-SHA-256", "y,,n=,r=n3")))
    }

    @Test func anOKInTheMiddleOfSCRAMIsRefused() throws {
        var authenticator = Authenticator(user: "u", password: "pw", isTLS: false, serverEndPointHash: nil, maxIterations: 10) { "n" }
        _ = try authenticator.step(.sasl(mechanisms: ["SCRAM-SHA-256"]))
        #expect(throws: PostgresError(.authentication, "the server ended SCRAM without proving it knows the password")) {
            try authenticator.step(.ok)
        }
    }

    @Test func md5FollowsPostgreSQLsFormula() throws {
        var authenticator = Authenticator(user: "alice", password: "secret", isTLS: false, serverEndPointHash: nil, maxIterations: 10)
        let salt: [UInt8] = [1, 2, 3, 4]
        let inner = Hex.encode(MD5.hash(Array("secretalice".utf8)))
        let expected = "md5" + Hex.encode(MD5.hash(Array(inner.utf8) + salt))
        var writer = MessageWriter()
        writer.password(Array(expected.utf8))
        #expect(try authenticator.step(.md5Password(salt: salt)) == .send(writer.bytes))
    }

    private func initial(_ mechanism: String, _ first: String) -> [UInt8] {
        var writer = MessageWriter()
        writer.saslInitialResponse(mechanism: mechanism, Array(first.utf8))
        return writer.bytes
    }
}
