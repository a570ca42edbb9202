import Testing
import HTTP

@Suite struct ParserFieldTests {
    @Test func refusesObsFold() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n") == .badRequest("obs-fold or whitespace at the start of a field line"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n\tc\r\n\r\n") == .badRequest("obs-fold or whitespace at the start of a field line"))
    }

    @Test func refusesWhitespaceBeforeTheColon() {
        #expect(parseError("GET / HTTP/1.1\r\nHost : a\r\n\r\n") == .badRequest("whitespace before the colon of a field"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A\t: b\r\n\r\n") == .badRequest("whitespace before the colon of a field"))
    }

    @Test func refusesBadFieldNames() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n") == .badRequest("empty field name"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX(A): b\r\n\r\n") == .badRequest("invalid byte in a field name"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n") == .badRequest("field line without a colon"))
    }

    @Test func refusesBareLF() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n") == .badRequest("bare LF in the head"))
        #expect(parseError("GET / HTTP/1.1\nHost: a\r\n\r\n") == .badRequest("bare LF in the head"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\n\n") == .badRequest("bare LF in the head"))
    }

    @Test func refusesBareCR() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\rX-A: b\r\n\r\n") == .badRequest("control byte in a field value"))
        #expect(parseError("GET / HTTP/1.1\r\nX\rA: b\r\nHost: a\r\n\r\n") == .badRequest("invalid byte in a field name"))
        #expect(parseError("GET /\r HTTP/1.1\r\nHost: a\r\n\r\n") == .badRequest("invalid byte in the request target"))
    }

    @Test func refusesControlBytesInValues() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\0c\r\n\r\n") == .badRequest("control byte in a field value"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\u{7F}\r\n\r\n") == .badRequest("control byte in a field value"))
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nX-A: \u{1B}\r\n\r\n") == .badRequest("control byte in a field value"))
    }

    /// Values are checked eight bytes at a time: a bad byte must be found at every offset.
    @Test func findsAControlByteAtAnyOffsetOfALongValue() {
        for bad in ["\0", "\u{1F}", "\u{7F}", "\u{8}", "\u{B}"] {
            for offset in 0..<40 {
                let value = String(repeating: "v", count: offset) + bad + String(repeating: "w", count: 39 - offset)
                let text = "GET / HTTP/1.1\r\nHost: a\r\nX-Long: \(value)\r\n\r\n"
                #expect(parseError(text) == .badRequest("control byte in a field value"), "\(bad.debugDescription) at \(offset)")
            }
        }
    }

    @Test func acceptsEveryAllowedByteAtAnyOffsetOfALongValue() throws {
        for good: UInt8 in [0x09, 0x20, 0x21, 0x7E, 0x80, 0xFF] {
            for offset in 0..<40 {
                var bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Long: ".utf8)
                let value = [UInt8](repeating: 0x76, count: offset) + [good] + [UInt8](repeating: 0x77, count: 39 - offset)
                bytes += value + Array("\r\n\r\n".utf8)
                let h = try HTTPRequestHead(parsing: bytes)
                // SP and HTAB at either end are OWS, trimmed; inside they are kept.
                let isOWS = { (b: UInt8) in b == 0x20 || b == 0x09 }
                let expected = Array(value.drop(while: isOWS).reversed().drop(while: isOWS).reversed())
                #expect(expected.count == (isOWS(good) && (offset == 0 || offset == 39) ? 39 : 40))
                #expect(h.headerBytes("x-long").map(Array.init) == expected, "\(good) at \(offset)")
            }
        }
    }

    @Test func acceptsTabsAndObsTextInValues() throws {
        let bytes = Array("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\tc \u{E9}\r\n\r\n".utf8)
        let h = try HTTPRequestHead(parsing: bytes)
        #expect(Array(try #require(h.headerBytes("x-a"))) == Array("b\tc \u{E9}".utf8))
    }

    @Test func refusesMissingHost() {
        #expect(parseError("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n") == .badRequest("missing Host field"))
    }

    @Test func refusesTwoHosts() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n") == .badRequest("more than one Host field"))
        #expect(parseError("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n") == .badRequest("more than one Host field"))
    }

    @Test func allowsHTTP10WithoutHost() {
        #expect(feed("GET / HTTP/1.0\r\n\r\n") == [.head(HeadSummary(.get, "/", version: .http10, fields: [], keepAlive: false)), .end("")])
    }

    @Test func trimsOptionalWhitespaceAroundValues() throws {
        let h = try #require(head("GET / HTTP/1.1\r\nHost:a\r\nX-A: \t spaced out \t \r\nX-Empty:   \r\n\r\n"))
        #expect(h.fields.map(\.name) == ["Host", "X-A", "X-Empty"])
        #expect(h.fields.map(\.value) == ["a", "spaced out", ""])
    }

    @Test func looksUpHeadersIgnoringCase() throws {
        let h = try #require(head("GET / HTTP/1.1\r\nHost: example.com\r\nX-Token: t1\r\nAccept: a\r\nx-token: t2\r\nX-TOKEN: t3\r\n\r\n"))
        #expect(h.header("host") == "example.com")
        #expect(h.header("HOST") == "example.com")
        #expect(h.header("X-Token") == "t1")
        #expect(h.headers("x-token") == ["t1", "t2", "t3"])
        #expect(h.headers("Accept") == ["a"])
        #expect(h.headers("Missing") == [])
        #expect(h.header("Missing") == nil)
        #expect(h.header("X-Toke") == nil)
        #expect(h.headerBytes("x-TOKEN") == ArraySlice(Array("t1".utf8)))
        #expect(h.headerBytes("Nope") == nil)
        #expect(h.headerCount == 5)
    }

    @Test func headInitRefusesIncompleteOrTrailingBytes() {
        #expect(throws: HTTPParseError.badRequest("incomplete head")) {
            try HTTPRequestHead(parsing: Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8))
        }
        #expect(throws: HTTPParseError.badRequest("bytes after the end of the head")) {
            try HTTPRequestHead(parsing: Array("GET / HTTP/1.1\r\nHost: a\r\n\r\nX".utf8))
        }
    }
}
