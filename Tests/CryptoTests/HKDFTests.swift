import Testing
@testable import Crypto

@Suite struct HKDFTests {
    @Test func rfc5869TestCaseOne() {
        let secret = [UInt8](repeating: 0x0B, count: 22)
        let salt = (0...12).map { UInt8($0) }
        let info = (0xF0...0xF9).map { UInt8($0) }
        let key = HKDF.extract(salt: salt, secret: secret)
        #expect(Hex.encode(key) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        #expect(Hex.encode(HKDF.expand(key: key, info: info, length: 42))
            == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func aShortOutputIsThePrefixOfALongOne() {
        let key = HKDF.extract(salt: [1, 2, 3], secret: [4, 5, 6])
        let long = HKDF.expand(key: key, info: [7], length: 100)
        #expect(long.count == 100)
        #expect(HKDF.expand(key: key, info: [7], length: 16) == Array(long.prefix(16)))
        #expect(HKDF.expand(key: key, info: [7], length: 0).isEmpty)
    }
}
