import Foundation
import Testing
@testable import Crypto

@Suite struct TOTPTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let unixTime: Int64
        let code: String
        var testDescription: String { "\(unixTime) -> \(code)" }
    }

    /// The RFC 6238 Appendix B seed for HMAC-SHA-256: 32 ASCII bytes.
    static let seed = Array("12345678901234567890123456789012".utf8)

    /// The six SHA-256 vectors of Tests/Fixtures/totp/rfc6238-sha256-8digit.json.
    static func fixture() throws -> (seedHex: String, seedBase32: String, vectors: [Vector]) {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/totp/rfc6238-sha256-8digit.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let entries = object?["vectors"] as? [[String: Any]] ?? []
        let vectors = entries.compactMap { entry -> Vector? in
            guard let time = entry["unix_time"] as? NSNumber, let code = entry["totp"] as? String else { return nil }
            return Vector(unixTime: time.int64Value, code: code)
        }
        return (object?["seed_hex"] as? String ?? "", object?["seed_base32"] as? String ?? "", vectors)
    }

    @Test func fixtureHasSixVectorsAndTheAppendixBSeed() throws {
        let fixture = try Self.fixture()
        #expect(fixture.vectors.count == 6)
        #expect(Hex.decode(fixture.seedHex) == Self.seed)
        #expect(Base32.decode(fixture.seedBase32) == Self.seed)
    }

    @Test func matchesEveryRFC6238SHA256Vector() throws {
        for vector in try Self.fixture().vectors {
            #expect(TOTP.code(secret: Self.seed, unixTime: vector.unixTime) == vector.code, "\(vector.testDescription)")
            #expect(TOTP.verify(vector.code, secret: Self.seed, unixTime: vector.unixTime), "\(vector.testDescription)")
        }
    }

    @Test func zeroPadsShortCodes() {
        // derived_6_digit of the 1111111109 vector in the fixture: "084774".
        #expect(TOTP.code(secret: Self.seed, unixTime: 1_111_111_109, digits: 6) == "084774")
    }

    @Test func acceptsTheStepBeforeAndAfter() {
        let now: Int64 = 1_234_567_890
        for offset: Int64 in [-1, 0, 1] {
            let code = TOTP.code(secret: Self.seed, unixTime: now + offset * 30)
            #expect(TOTP.verify(code, secret: Self.seed, unixTime: now), "offset \(offset)")
        }
    }

    @Test func refusesCodesTwoStepsAway() {
        let now: Int64 = 1_234_567_890
        for offset: Int64 in [-2, 2] {
            let code = TOTP.code(secret: Self.seed, unixTime: now + offset * 30)
            #expect(code != TOTP.code(secret: Self.seed, unixTime: now))
            #expect(!TOTP.verify(code, secret: Self.seed, unixTime: now), "offset \(offset)")
        }
    }

    @Test func widerWindowAcceptsTwoStepsAway() {
        let code = TOTP.code(secret: Self.seed, unixTime: 1_234_567_890 - 60)
        #expect(TOTP.verify(code, secret: Self.seed, unixTime: 1_234_567_890, window: 2))
        #expect(!TOTP.verify(code, secret: Self.seed, unixTime: 1_234_567_890, window: 0))
    }

    @Test func refusesWrongLengths() {
        #expect(!TOTP.verify("9181942", secret: Self.seed, unixTime: 1_234_567_890))
        #expect(!TOTP.verify("918194240", secret: Self.seed, unixTime: 1_234_567_890))
        #expect(!TOTP.verify("", secret: Self.seed, unixTime: 1_234_567_890))
        #expect(!TOTP.verify("819424", secret: Self.seed, unixTime: 1_234_567_890))
    }

    @Test func refusesNonDigits() {
        for code in ["9181942a", " 9181942", "9181942 ", "+9181942", "9181942\u{0}", "９1819424", "91819424\n"] {
            #expect(!TOTP.verify(code, secret: Self.seed, unixTime: 1_234_567_890), "\(code.debugDescription)")
        }
    }

    @Test func refusesTheRightCodeUnderAnotherSecret() {
        #expect(!TOTP.verify("91819424", secret: Array(Self.seed.dropLast()), unixTime: 1_234_567_890))
    }

    @Test func refusesInvalidParametersInsteadOfTrapping() {
        #expect(!TOTP.verify("91819424", secret: Self.seed, unixTime: 1_234_567_890, step: 0))
        #expect(!TOTP.verify("91819424", secret: Self.seed, unixTime: 1_234_567_890, window: -1))
        #expect(!TOTP.verify("", secret: Self.seed, unixTime: 1_234_567_890, digits: 0))
    }

    @Test func usesFloorDivisionForTimesBefore1970() {
        #expect(TOTP.counter(-1, step: 30) == -1)
        #expect(TOTP.counter(-30, step: 30) == -1)
        #expect(TOTP.counter(-31, step: 30) == -2)
        #expect(TOTP.counter(29, step: 30) == 0)
    }

    @Test func survivesTheExtremesOfTime() {
        let early = TOTP.code(secret: Self.seed, unixTime: .min)
        let late = TOTP.code(secret: Self.seed, unixTime: .max)
        #expect(early.utf8.count == 8)
        #expect(late.utf8.count == 8)
        #expect(TOTP.verify(early, secret: Self.seed, unixTime: .min))
        #expect(TOTP.verify(late, secret: Self.seed, unixTime: .max))
    }
}
