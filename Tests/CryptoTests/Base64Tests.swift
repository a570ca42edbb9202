import Testing
@testable import Crypto

@Suite struct Base64Tests {
    /// RFC 4648 section 10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test func encodesRFC4648Vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
        }
    }

    @Test func decodesRFC4648Vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.decode(encoded) == Array(plain.utf8), "\(encoded)")
        }
    }

    @Test func omitsPaddingWhenAsked() {
        #expect(Base64.encode(Array("f".utf8), padded: false) == "Zg")
        #expect(Base64.encode(Array("fo".utf8), padded: false) == "Zm8")
        #expect(Base64.encode(Array("foo".utf8), padded: false) == "Zm9v")
    }

    @Test func decodesWithoutPadding() {
        #expect(Base64.decode("Zg") == Array("f".utf8))
        #expect(Base64.decode("Zm8") == Array("fo".utf8))
        #expect(Base64.decode("Zm9vYg") == Array("foob".utf8))
    }

    @Test func usesTheURLAlphabetWhenAsked() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64.encode(bytes, urlSafe: true) == "-_-_")
        #expect(Base64.decode("+/+/") == bytes)
        #expect(Base64.decode("-_-_") == bytes)
        #expect(Base64.encode([0xFF], urlSafe: true, padded: false) == "_w")
    }

    @Test func roundTripsEveryLengthAndByte() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            for urlSafe in [false, true] {
                for padded in [false, true] {
                    let text = Base64.encode(bytes, urlSafe: urlSafe, padded: padded)
                    #expect(Base64.decode(text) == bytes, "\(text)")
                }
            }
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 200))
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
    }

    @Test func rejectsMixedAlphabets() {
        #expect(Base64.decode("+/-_") == nil)
        #expect(Base64.decode("ab+_") == nil)
    }

    @Test func rejectsWrongPadding() {
        for text in ["Zg=", "Zg===", "Zm8==", "Zm9v=", "Zm9v====", "=", "==", "Z===", "Zg==Zg==", "Z=g=", "Zm9vYg=x"] {
            #expect(Base64.decode(text) == nil, "\(text)")
        }
    }

    @Test func rejectsImpossibleLengths() {
        #expect(Base64.decode("Z") == nil)
        #expect(Base64.decode("Zm9vY") == nil)
    }

    @Test func rejectsWhitespaceAndForeignCharacters() {
        for text in ["Zm9v Yg==", "Zm9v\nYg==", " Zm9v", "Zm9v\r\n", "Zm9*", "Zm9v.", "Zm9é", "Zm9v\u{0}"] {
            #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func rejectsNonZeroUnusedBits() {
        #expect(Base64.decode("Zh==") == nil)
        #expect(Base64.decode("Zh") == nil)
        #expect(Base64.decode("Zm9=") == nil)
        #expect(Base64.decode("Zm8=") == Array("fo".utf8))
    }
}
