import Testing
import TestSupport
import Clock
import Crypto
import JSON
@testable import APNs

@Suite struct ProviderTokenTests {
    /// The DER form of a raw `r || s` signature, for `openssl dgst -verify`.
    func der(fromRaw raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    func decode(_ part: Substring) throws -> JSON {
        let bytes = try #require(Base64.decode(String(part)))
        return try JSONParser.parse(bytes)
    }

    @Test func theTokenIsAnES256JWTThatOpenSSLVerifies() throws {
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        let clock = ManualClock(wallMillis: 1_760_000_123_456)
        let provider = ProviderToken(signer: try APNsConfiguration.providerKey(pem: key.pem), teamID: "TEAM123456", keyID: "KEY1234567",
                                     clock: clock, lifetime: .seconds(3000))
        let token = try #require(provider.token())
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        #expect(String(decoding: try #require(Base64.decode(String(parts[0]))), as: UTF8.self) == #"{"alg":"ES256","kid":"KEY1234567"}"#)
        #expect(String(decoding: try #require(Base64.decode(String(parts[1]))), as: UTF8.self) == #"{"iss":"TEAM123456","iat":1760000123}"#)
        let signature = try #require(Base64.decode(String(parts[2])))
        #expect(signature.count == 64)

        TemporaryDirectory.write(Array("\(parts[0]).\(parts[1])".utf8), to: directory.file("input"))
        TemporaryDirectory.write(der(fromRaw: signature), to: directory.file("signature.der"))
        let verify = ["openssl", "dgst", "-sha256", "-verify", key.publicKeyFile, "-signature", directory.file("signature.der"), directory.file("input")]
        #expect(try ChildProcess.run(verify, output: directory.file("verify.log")) == 0)
        #expect(String(decoding: readFile(directory.file("verify.log")), as: UTF8.self) == "Verified OK\n")

        // And the check can fail: another message does not verify.
        TemporaryDirectory.write(Array("\(parts[0]).\(parts[0])".utf8), to: directory.file("input"))
        #expect(try ChildProcess.run(verify, output: directory.file("verify.log")) == 1)
    }

    @Test func manySignaturesVerifyWhateverTheSizeOfRAndS() throws {
        // About one signature in 128 has an r or s below 2^248, which DER writes short; 200
        // signatures likely meet some, and each must still verify from its padded raw form.
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        let signer = try APNsConfiguration.providerKey(pem: key.pem)
        var script = ""
        for i in 0..<200 {
            let message = Array("message \(i)".utf8)
            let raw = try #require(signer.signature(for: message))
            #expect(raw.count == 64)
            TemporaryDirectory.write(message, to: directory.file("m\(i)"))
            TemporaryDirectory.write(der(fromRaw: raw), to: directory.file("s\(i)"))
            script += "openssl dgst -sha256 -verify \(key.publicKeyFile) -signature \(directory.file("s\(i)")) \(directory.file("m\(i)")) >/dev/null || echo \(i)\n"
        }
        TemporaryDirectory.write(Array(script.utf8), to: directory.file("verify.sh"))
        #expect(try ChildProcess.run(["sh", directory.file("verify.sh")], output: directory.file("failed")) == 0)
        #expect(readFile(directory.file("failed")).isEmpty, "signatures that did not verify: \(String(decoding: readFile(directory.file("failed")), as: UTF8.self))")
    }

    @Test func oneTokenIsReusedUntilItsLifetimeEnds() throws {
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        let clock = ManualClock()
        let provider = ProviderToken(signer: try APNsConfiguration.providerKey(pem: key.pem), teamID: "TEAM123456", keyID: "KEY1234567",
                                     clock: clock, lifetime: .seconds(50 * 60))
        let first = try #require(provider.token())
        clock.advance(by: .seconds(49 * 60 + 59))
        #expect(provider.token() == first)
        clock.advance(by: .seconds(1))
        let second = try #require(provider.token())
        #expect(second != first)
        let claims = try decode(second.split(separator: ".")[1])
        #expect(claims["iat"]?.int64Value == (clock.wallMillis / 1000))
        #expect(provider.token() == second)
    }

    @Test func anExpiredTokenIsRenewedOnceHoweverManyAnswersSayIt() throws {
        let directory = TemporaryDirectory()
        let key = try makeP256Key(in: directory)
        let clock = ManualClock()
        let provider = ProviderToken(signer: try APNsConfiguration.providerKey(pem: key.pem), teamID: "TEAM123456", keyID: "KEY1234567",
                                     clock: clock, lifetime: .seconds(50 * 60))
        let first = try #require(provider.token())
        provider.expire(first)
        let second = try #require(provider.token())
        #expect(second != first)
        // A late answer about the first token leaves the second alone.
        provider.expire(first)
        #expect(provider.token() == second)
    }

    @Test func keysThatAreNotP256PEMAreRefused() throws {
        let directory = TemporaryDirectory()
        #expect(throws: APNsConfigurationError.self) { try APNsConfiguration.providerKey(pem: Array("not a key".utf8)) }
        #expect(throws: APNsConfigurationError.self) { try APNsConfiguration.providerKey(pem: []) }
        for (name, options) in [("rsa", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
                                ("p384", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])] {
            let file = directory.file("\(name).pem")
            #expect(try ChildProcess.run(["openssl", "genpkey"] + options + ["-out", file], output: directory.file("log")) == 0)
            do {
                _ = try APNsConfiguration.providerKey(pem: readFile(file))
                Issue.record("a \(name) key was accepted")
            } catch {
                #expect(error.message == "the APNs private key is not an EC P-256 key")
            }
        }
    }
}
