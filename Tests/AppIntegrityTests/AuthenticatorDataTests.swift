import Testing
@testable import AppIntegrity

/// The authenticator data reader, on bytes made here: the validation category rule
/// (`app-integrity.md#what-the-server-validates`, step 8) and the malformed cases.
@Suite struct AuthenticatorDataTests {
    /// rpIdHash, flags (AT), counter 0, aaguid, a 32-byte credential ID, a COSE EC2 key, then `tail`.
    static func authData(flags: UInt8 = 0x40, tail: [UInt8] = []) -> [UInt8] {
        var bytes = [UInt8](repeating: 1, count: 32) + [flags, 0, 0, 0, 0]
        bytes += AppAttestEnvironment.development.aaguid + [0, 32] + [UInt8](repeating: 2, count: 32)
        // {1: 2, 3: -7, -1: 1, -2: h'03..', -3: h'04..'}
        bytes += [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + [UInt8](repeating: 3, count: 32)
        bytes += [0x22, 0x58, 0x20] + [UInt8](repeating: 4, count: 32)
        return bytes + tail
    }

    /// {"apple_validation_category_01": value}
    static func category(_ value: [UInt8]) -> [UInt8] {
        let name = Array("apple_validation_category_01".utf8)
        return [0xA1, 0x78, UInt8(name.count)] + name + value
    }

    @Test func readsTheParts() throws {
        let data = try AuthenticatorData(Self.authData())
        #expect(data.rpIDHash == [UInt8](repeating: 1, count: 32))
        #expect(data.counter == 0)
        #expect(data.aaguid == AppAttestEnvironment.development.aaguid)
        #expect(data.credentialID == [UInt8](repeating: 2, count: 32))
        #expect(data.credentialPoint == [4] + [UInt8](repeating: 3, count: 32) + [UInt8](repeating: 4, count: 32))
        #expect(data.extensions == nil)
        #expect(data.validationCategory == nil)
    }

    @Test(arguments: 0...9) func readsTheValidationCategoryAsApplesSampleWritesIt(_ value: UInt8) throws {
        let data = try AuthenticatorData(Self.authData(tail: Self.category([0x44, value, 0, 0, 0])))
        #expect(data.validationCategory == UInt64(value))
        let asNumber = try AuthenticatorData(Self.authData(flags: 0xC0, tail: Self.category([value])))
        #expect(asNumber.validationCategory == UInt64(value))
    }

    @Test func aCategoryOfAnotherTypeReadsAsZero() throws {
        #expect(try AuthenticatorData(Self.authData(tail: Self.category([0x61, 0x31]))).validationCategory == 0)
    }

    @Test func refusesMalformedData() {
        let good = Self.authData()
        let cases: [[UInt8]] = [
            [],
            Array(good.prefix(54)),
            Self.authData(flags: 0x00),
            Array(good.prefix(60)),
            Array(good.dropLast()),
            Self.authData(tail: [0x01]),
            Self.authData(tail: [0xA1]),
        ]
        for bytes in cases {
            #expect(throws: AppAttestError.self) { try AuthenticatorData(bytes) }
        }
    }
}
