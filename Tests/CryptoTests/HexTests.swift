import Testing
@testable import Crypto

@Suite struct HexTests {
    @Test func encodesLowercase() {
        #expect(Hex.encode(Array("foobar".utf8)) == "666f6f626172")
        #expect(Hex.encode([0x00, 0x0F, 0xF0, 0xFF, 0xAB]) == "000ff0ffab")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test func encodesNonContiguousSequences() {
        #expect(Hex.encode((0..<4).lazy.map { UInt8($0 * 0x11) }) == "00112233")
        #expect(Hex.encode([0xDE, 0xAD, 0xBE, 0xEF][1...]) == "adbeef")
    }

    @Test func decodesEitherCase() {
        #expect(Hex.decode("666F6F626172") == Array("foobar".utf8))
        #expect(Hex.decode("deADbeEF") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Hex.decode("") == [])
    }

    @Test func roundTripsEveryByte() {
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(all)) == all)
    }

    @Test func rejectsOddLengths() {
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("a") == nil)
    }

    @Test func rejectsNonHexCharacters() {
        for text in ["0g", "0x00", "ab cd", " abc", "ab\n", "éé", "１２", "zz"] {
            #expect(Hex.decode(text) == nil, "\(text.debugDescription)")
        }
    }
}
