import Testing
@testable import Crypto

@Suite struct Base32Tests {
    /// RFC 4648 section 10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="),
        ("foob", "MZXW6YQ="), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ]

    @Test func encodesRFC4648Vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
        }
    }

    @Test func decodesRFC4648Vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base32.decode(encoded) == Array(plain.utf8), "\(encoded)")
        }
    }

    @Test func decodesWithoutPadding() {
        #expect(Base32.decode("MY") == Array("f".utf8))
        #expect(Base32.decode("MZXW6YQ") == Array("foob".utf8))
        #expect(Base32.decode("MZXW6YTBOI") == Array("foobar".utf8))
    }

    @Test func decodesLowercaseAndMixedCase() {
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
        #expect(Base32.decode("MzXw6YtBoI") == Array("foobar".utf8))
    }

    @Test func ignoresSpacesBetweenGroups() {
        #expect(Base32.decode("MZXW 6YTB OI") == Array("foobar".utf8))
        #expect(Base32.decode(" gezd gnbv gy3t qojq ") == Array("1234567890".utf8))
        #expect(Base32.decode("MY== ====") == Array("f".utf8))
    }

    @Test func decodesTheFixtureSeed() {
        #expect(Base32.decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====")
            == Array("12345678901234567890123456789012".utf8))
    }

    @Test func roundTripsEveryLength() {
        var bytes: [UInt8] = []
        for length in 0..<50 {
            #expect(Base32.decode(Base32.encode(bytes)) == bytes)
            bytes.append(UInt8(truncatingIfNeeded: length &* 91 &+ 7))
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base32.decode(Base32.encode(all)) == all)
    }

    @Test func rejectsCharactersOutsideTheAlphabet() {
        for text in ["MZXW1YTB", "MZXW0YTB", "MZXW8YTB", "MZXW-YTB", "MZXW\tYTB", "MZXW\nYTB", "MZXWÉYTB", "MZXW6YT+"] {
            #expect(Base32.decode(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func rejectsImpossibleLengths() {
        // 1, 3 or 6 characters in the last group cannot come from any byte string.
        #expect(Base32.decode("M") == nil)
        #expect(Base32.decode("MZX") == nil)
        #expect(Base32.decode("MZXW6Y") == nil)
        #expect(Base32.decode("MZXW6YTBM") == nil)
    }

    @Test func rejectsWrongPadding() {
        for text in ["MY=", "MY=====", "MY=======", "MZXW6YTB========", "MY======MY======", "M=Y=====", "========"] {
            #expect(Base32.decode(text) == nil, "\(text)")
        }
    }

    @Test func rejectsNonZeroUnusedBits() {
        #expect(Base32.decode("MZ") == nil)
        #expect(Base32.decode("MY") == Array("f".utf8))
    }
}
