import Testing
@testable import Crypto

/// RFC 4231 section 4, HMAC-SHA-256 results.
@Suite struct HMACTests {
    private func mac(_ key: [UInt8], _ message: [UInt8]) -> String {
        Hex.encode(HMAC.sha256(key: key, message: message))
    }

    @Test func matchesRFC4231Case1() {
        #expect(mac([UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func matchesRFC4231Case2ShortKey() {
        #expect(mac(Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func matchesRFC4231Case3() {
        #expect(mac([UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50))
            == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
    }

    @Test func matchesRFC4231Case4() {
        #expect(mac(Array(1...25), [UInt8](repeating: 0xCD, count: 50))
            == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
    }

    @Test func matchesRFC4231Case5Truncated() {
        let full = HMAC.sha256(key: [UInt8](repeating: 0x0C, count: 20), message: Array("Test With Truncation".utf8))
        #expect(Hex.encode(full.prefix(16)) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test func matchesRFC4231Case6KeyLongerThanBlock() {
        #expect(mac([UInt8](repeating: 0xAA, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func matchesRFC4231Case7KeyAndDataLongerThanBlock() {
        let text = "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
        #expect(mac([UInt8](repeating: 0xAA, count: 131), Array(text.utf8))
            == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    }

    // Cross-checked with python3 hmac/hashlib: the empty key and the block-size boundary.
    @Test func acceptsAnEmptyKeyAndMessage() {
        #expect(mac([], []) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func usesAKeyOfExactlyOneBlockAsIs() {
        #expect(mac(Array(0..<64), Array("boundary".utf8)) == "04660fc313657aa3500078e1f2788cc4e328654092b137f946516e4d7a17adae")
    }

    @Test func hashesAKeyOneByteLongerThanABlock() {
        #expect(mac(Array(0..<65), Array("boundary".utf8)) == "ea8a9678017bce7c50df43ced20cc4b112ed884969720bb2ec14e24ce582f037")
    }
}
