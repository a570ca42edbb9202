import Testing
@testable import AppIntegrity

/// RFC 8949 appendix A, written out here by hand, and one input per class of malformed
/// input of appendix F plus the decoder's own limits.
@Suite struct CBORDecoderTests {
    private static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    private func decode(_ hex: String) throws -> CBOR {
        try CBORDecoder.decode(Self.hex(hex))
    }

    private func failure(_ hex: String, limits: CBORDecoder.Limits = CBORDecoder.Limits()) -> CBORError.Reason? {
        do {
            _ = try CBORDecoder.decode(Self.hex(hex), limits: limits)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func decodesTheIntegersOfAppendixA() throws {
        #expect(try decode("00") == .unsigned(0))
        #expect(try decode("01") == .unsigned(1))
        #expect(try decode("0a") == .unsigned(10))
        #expect(try decode("17") == .unsigned(23))
        #expect(try decode("1818") == .unsigned(24))
        #expect(try decode("1819") == .unsigned(25))
        #expect(try decode("1864") == .unsigned(100))
        #expect(try decode("1903e8") == .unsigned(1000))
        #expect(try decode("1a000f4240") == .unsigned(1_000_000))
        #expect(try decode("1b000000e8d4a51000") == .unsigned(1_000_000_000_000))
        #expect(try decode("1bffffffffffffffff") == .unsigned(UInt64.max))
        #expect(try decode("3bffffffffffffffff") == .negative(UInt64.max))
        #expect(try decode("20") == .negative(0))
        #expect(try decode("20").integerValue == -1)
        #expect(try decode("29").integerValue == -10)
        #expect(try decode("3863").integerValue == -100)
        #expect(try decode("3903e7").integerValue == -1000)
        #expect(try decode("c249010000000000000000") == .tagged(2, .bytes(Self.hex("010000000000000000"))))
    }

    @Test func decodesTheFloatsOfAppendixA() throws {
        #expect(try decode("f90000") == .float(0.0))
        #expect(try decode("f98000") == .float(-0.0))
        #expect(try decode("f93c00") == .float(1.0))
        #expect(try decode("fb3ff199999999999a") == .float(1.1))
        #expect(try decode("f93e00") == .float(1.5))
        #expect(try decode("f97bff") == .float(65504.0))
        #expect(try decode("fa47c35000") == .float(100000.0))
        #expect(try decode("fa7f7fffff") == .float(Double(Float.greatestFiniteMagnitude)))
        #expect(try decode("fb7e37e43c8800759c") == .float(1.0e300))
        #expect(try decode("f90001") == .float(5.960464477539063e-8))
        #expect(try decode("f90400") == .float(0.00006103515625))
        #expect(try decode("f9c400") == .float(-4.0))
        #expect(try decode("fbc010666666666666") == .float(-4.1))
        #expect(try decode("f97c00") == .float(.infinity))
        #expect(try decode("f9fc00") == .float(-.infinity))
        #expect(try decode("fa7f800000") == .float(.infinity))
        #expect(try decode("fb7ff0000000000000") == .float(.infinity))
        guard case .float(let nan) = try decode("f97e00") else { Issue.record("not a float"); return }
        #expect(nan.isNaN)
    }

    @Test func decodesTheSimpleValuesAndTagsOfAppendixA() throws {
        #expect(try decode("f4") == .bool(false))
        #expect(try decode("f5") == .bool(true))
        #expect(try decode("f6") == .null)
        #expect(try decode("f7") == .undefined)
        #expect(try decode("f0") == .simple(16))
        #expect(try decode("f8ff") == .simple(255))
        #expect(try decode("c074323031332d30332d32315432303a30343a30305a") == .tagged(0, .text("2013-03-21T20:04:00Z")))
        #expect(try decode("c11a514b67b0") == .tagged(1, .unsigned(1_363_896_240)))
        #expect(try decode("d74401020304") == .tagged(23, .bytes([1, 2, 3, 4])))
        #expect(try decode("d818456449455446") == .tagged(24, .bytes(Array("dIETF".utf8))))
        #expect(try decode("d82076687474703a2f2f7777772e6578616d706c652e636f6d")
            == .tagged(32, .text("http://www.example.com")))
    }

    @Test func decodesTheStringsOfAppendixA() throws {
        #expect(try decode("40") == .bytes([]))
        #expect(try decode("4401020304") == .bytes([1, 2, 3, 4]))
        #expect(try decode("60") == .text(""))
        #expect(try decode("6161") == .text("a"))
        #expect(try decode("6449455446") == .text("IETF"))
        #expect(try decode("62225c") == .text("\"\\"))
        #expect(try decode("62c3bc") == .text("\u{fc}"))
        #expect(try decode("63e6b0b4") == .text("\u{6c34}"))
        #expect(try decode("64f0908591") == .text("\u{10151}"))
        #expect(try decode("5f42010243030405ff") == .bytes([1, 2, 3, 4, 5]))
        #expect(try decode("7f657374726561646d696e67ff") == .text("streaming"))
    }

    @Test func decodesTheArraysAndMapsOfAppendixA() throws {
        let one23: CBOR = .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
        #expect(try decode("80") == .array([]))
        #expect(try decode("83010203") == .array([.unsigned(1), .unsigned(2), .unsigned(3)]))
        #expect(try decode("8301820203820405") == one23)
        let twentyFive = CBOR.array((1...25).map { .unsigned(UInt64($0)) })
        #expect(try decode("98190102030405060708090a0b0c0d0e0f101112131415161718181819") == twentyFive)
        #expect(try decode("a0") == .map([]))
        #expect(try decode("a201020304") == .map([.init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .unsigned(4))]))
        #expect(try decode("a26161016162820203")
            == .map([.init(.text("a"), .unsigned(1)), .init(.text("b"), .array([.unsigned(2), .unsigned(3)]))]))
        #expect(try decode("826161a161626163") == .array([.text("a"), .map([.init(.text("b"), .text("c"))])]))
        let letters = try decode("a56161614161626142616361436164614461656145")
        #expect(letters["e"] == .text("E"))
        #expect(try decode("9fff") == .array([]))
        #expect(try decode("9f018202039f0405ffff") == one23)
        #expect(try decode("9f01820203820405ff") == one23)
        #expect(try decode("83018202039f0405ff") == one23)
        #expect(try decode("83019f0203ff820405") == one23)
        #expect(try decode("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff") == twentyFive)
        #expect(try decode("bf61610161629f0203ffff")
            == .map([.init(.text("a"), .unsigned(1)), .init(.text("b"), .array([.unsigned(2), .unsigned(3)]))]))
        #expect(try decode("826161bf61626163ff") == .array([.text("a"), .map([.init(.text("b"), .text("c"))])]))
        #expect(try decode("bf6346756ef563416d7421ff")
            == .map([.init(.text("Fun"), .bool(true)), .init(.text("Amt"), .negative(1))]))
        #expect(try decode("a1200a")[label: -1] == .unsigned(10))
    }

    @Test func refusesEveryClassOfMalformedInput() {
        // Truncated: an empty input, an argument, a string, an array, a map, an indefinite item.
        #expect(failure("") == .truncated)
        #expect(failure("18") == .truncated)
        #expect(failure("1b0000000000") == .truncated)
        #expect(failure("83") == .tooLong)
        #expect(failure("8301") == .tooLong)
        #expect(failure("a20102") == .tooLong)
        #expect(failure("9f01") == .truncated)
        #expect(failure("5f4101") == .truncated)
        #expect(failure("bf0102") == .truncated)
        #expect(failure("bf01") == .truncated)
        // A length beyond the input, also one that would not fit in memory.
        #expect(failure("4401") == .tooLong)
        #expect(failure("5bffffffffffffffff") == .tooLong)
        #expect(failure("9bffffffffffffffff00") == .tooLong)
        #expect(failure("bb8000000000000000") == .tooLong)
        // Reserved additional information 28 to 30, on every major type.
        for initial in ["1c", "1d", "1e", "3c", "5d", "7e", "9c", "bd", "de", "fc", "fd", "fe"] {
            #expect(failure(initial) == .reservedAdditionalInfo, "\(initial)")
        }
        // Indefinite length where there is none.
        #expect(failure("1f") == .indefiniteNotAllowed)
        #expect(failure("3f") == .indefiniteNotAllowed)
        #expect(failure("df00") == .indefiniteNotAllowed)
        // A break alone, in a definite array, or as a map's value.
        #expect(failure("ff") == .unexpectedBreak)
        #expect(failure("81ff") == .unexpectedBreak)
        #expect(failure("bf01ffff") == .unexpectedBreak)
        // Chunks of another type, nested indefinite chunks, a number as a chunk.
        #expect(failure("5f6161ff") == .badChunk)
        #expect(failure("7f4161ff") == .badChunk)
        #expect(failure("5f5fffff") == .badChunk)
        #expect(failure("5f00ff") == .badChunk)
        // Text that is not UTF-8: a lone continuation byte, a surrogate, in a chunk.
        #expect(failure("6180") == .invalidUTF8)
        #expect(failure("63eda080") == .invalidUTF8)
        #expect(failure("7f6180ff") == .invalidUTF8)
        // A two-byte simple value below 32 (appendix F.1).
        #expect(failure("f800") == .badSimpleValue)
        #expect(failure("f81f") == .badSimpleValue)
        // Bytes after the item, and a key twice.
        #expect(failure("0000") == .trailingBytes)
        #expect(failure("a201020103") == .duplicateKey)
        #expect(failure("a2616101616102") == .duplicateKey)
    }

    @Test func enforcesItsLimits() {
        var limits = CBORDecoder.Limits()
        limits.maxDepth = 3
        #expect(failure("81818100", limits: limits) == nil)
        #expect(failure("8181818100", limits: limits) == .tooDeep)
        #expect(failure("c1c1c1c100", limits: limits) == .tooDeep)
        limits.maxItems = 4
        #expect(failure("83010203", limits: limits) == nil)
        #expect(failure("8401020304", limits: limits) == .tooManyItems)
        #expect(failure("9f01020304ff", limits: limits) == .tooManyItems)
        #expect(failure("5f41014101410141014101ff", limits: limits) == .tooManyItems)
        limits.maxBytes = 4
        #expect(failure("4401020304", limits: limits) == .tooLong)
        // The default depth stops a deep nest long before the stack would.
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: CBORError.self) { try CBORDecoder.decode(deep) }
    }

    @Test func aPrefixSaysHowManyBytesItTook() throws {
        let (item, used) = try CBORDecoder.decodePrefix(Self.hex("8201020304"))
        #expect(item == .array([.unsigned(1), .unsigned(2)]))
        #expect(used == 3)
    }
}
