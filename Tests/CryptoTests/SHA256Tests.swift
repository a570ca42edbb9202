import Testing
@testable import Crypto

@Suite struct SHA256Tests {
    @Test func hashesTheEmptyString() {
        #expect(Hex.encode(SHA256.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hashesABC() {
        #expect(Hex.encode(SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hashesTheTwoBlockVector() {
        let text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(Hex.encode(SHA256.hash(text)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func hashesAMillionAs() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(SHA256.hash(bytes)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func givesTheSameDigestForEachInputForm() {
        let text = "relaydeck ✓"
        let bytes = Array(text.utf8)
        let fromPointer = bytes.withUnsafeBytes { SHA256.hash($0) }
        #expect(SHA256.hash(text) == SHA256.hash(bytes))
        #expect(fromPointer == SHA256.hash(bytes))
        #expect(SHA256.hash(bytes).count == 32)
    }

    @Test func hashesAnEmptyBufferWithoutABaseAddress() {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(Hex.encode(SHA256.hash(empty)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
