import Testing
@testable import HTTPClient

/// The answer reader fed bytes alone: whole, one byte at a time, and split at every place.
@Suite struct ResponseDecoderTests {
    static let limits = HTTPClientLimits(maxHeadBytes: 256, maxHeaderCount: 4, maxBodyBytes: 32, maxChunkLineBytes: 24,
                                         maxTrailerBytes: 40)

    struct Read: Equatable {
        var status: Int
        var headers: [String]
        var body: String
    }

    /// Feeds `text` in the pieces given by `cuts`, then the end of the stream when `closes`.
    func read(_ text: String, cuts: [Int] = [], closes: Bool = false, isHEAD: Bool = false, readsBody: Bool = true,
              limits: HTTPClientLimits = Self.limits) throws(AnswerProblem) -> Read? {
        var decoder = ResponseDecoder(limits: limits, isHEAD: isHEAD, readsBody: readsBody)
        let bytes = Array(text.utf8)
        var start = 0
        var complete = false
        for end in cuts + [bytes.count] where end >= start && !complete {
            complete = try decoder.take(bytes[start..<end])
            start = end
        }
        if !complete && closes { try decoder.end() }
        guard complete || closes, let head = decoder.head else { return nil }
        return Read(status: head.status, headers: head.headers.map { "\($0.name): \($0.value)" },
                    body: String(decoding: decoder.body, as: UTF8.self))
    }

    /// The same answer whatever the reads it comes in: whole, a byte at a time, in two pieces
    /// cut anywhere.
    func readEveryWay(_ text: String, closes: Bool = false) throws(AnswerProblem) -> Read? {
        let whole = try read(text, closes: closes)
        let count = text.utf8.count
        #expect(try read(text, cuts: Array(0..<count), closes: closes) == whole, "byte by byte")
        for cut in 0...count {
            #expect(try read(text, cuts: [cut], closes: closes) == whole, "cut at \(cut)")
        }
        return whole
    }

    @Test func aContentLengthBodyEndsAtItsLengthWhateverFollows() throws {
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\": true}extra"
        #expect(try readEveryWay(answer) == Read(status: 200, headers: ["Content-Type: application/json", "Content-Length: 11"],
                                                 body: #"{"a": true}"#))
    }

    @Test func aChunkedBodyIsJoinedWithoutExtensionsOrTrailers() throws {
        let answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5\r\nhello\r\n1;name=value\r\n,\r\nA  ; x\r\n world!!!!\r\n0\r\nX-Trailer: 1\r\n\r\n"
        #expect(try readEveryWay(answer) == Read(status: 200, headers: ["Transfer-Encoding: Chunked"], body: "hello, world!!!!"))
    }

    @Test func aBodyWithoutLengthOrChunksEndsWhenThePeerCloses() throws {
        let answer = "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nuntil the end"
        #expect(try read(answer) == nil, "not complete before the close")
        #expect(try readEveryWay(answer, closes: true) == Read(status: 200, headers: ["Server: x"], body: "until the end"))
    }

    @Test func headNoContentAndNotModifiedHaveNoBodyWhateverTheirHeadSays() throws {
        #expect(try read("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", isHEAD: true)?.body == "")
        #expect(try read("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n")?.body == "")
        #expect(try read("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n")?.body == "")
        #expect(try read("HTTP/1.1 201 Created\r\nContent-Length: 999999\r\n\r\n", readsBody: false)?.status == 201)
    }

    @Test func interimAnswersAreSkippedAndTheFinalOneRead() throws {
        let answer = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        #expect(try readEveryWay(answer) == Read(status: 200, headers: ["Content-Length: 2"], body: "ok"))
        #expect(throws: AnswerProblem.malformed("sent 101 Switching Protocols, which was not asked for")) {
            try read("HTTP/1.1 101 Switching Protocols\r\n\r\n")
        }
    }

    @Test func aStatusLineWithoutAReasonIsRead() throws {
        #expect(try read("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n")?.status == 200)
        #expect(try read("HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n")?.status == 404)
    }

    @Test(arguments: ["HTTP/1.1 2OO OK", "HTTP/2 200 OK", "HTTP/1.2 200 OK", "HTTP/1.1 600 Nope", "HTTP/1.1 099 x",
                      "HTTP/1.1  200 OK", "HTTP/1.1 200OK", "SSH-2.0-OpenSSH_9.2", "http/1.1 200 OK"])
    func aStatusLineThatIsNotHTTP1IsRefused(_ line: String) {
        #expect(throws: AnswerProblem.malformed("sent a status line that is not HTTP/1.x: \(String(reflecting: line))")) {
            try read(line + "\r\nContent-Length: 0\r\n\r\n")
        }
    }

    @Test func headLinesThatAreNotCleanFieldsAreRefused() {
        #expect(throws: AnswerProblem.malformed("sent a line that does not end in CRLF")) { try read("HTTP/1.1 200 OK\nA: b\n\n") }
        #expect(throws: AnswerProblem.malformed("sent a folded header line (obs-fold)")) {
            try read("HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed(#"sent a header line that is not a field: "Content-Length : 5""#)) {
            try read("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed(#"sent a header line that is not a field: "no colon""#)) {
            try read("HTTP/1.1 200 OK\r\nno colon\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed(#"sent a control byte in the value of "A""#)) {
            try read("HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n")
        }
    }

    @Test func framingThatCouldBeReadTwoWaysIsRefused() {
        #expect(throws: AnswerProblem.malformed("sent both Transfer-Encoding and Content-Length")) {
            try read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed(#"sent a transfer coding other than chunked: "gzip, chunked""#)) {
            try read("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed("sent Transfer-Encoding in an HTTP/1.0 answer")) {
            try read("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed(#"sent a Content-Length that is not one number: "3, 4""#)) {
            try read("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n")
        }
        #expect(throws: AnswerProblem.malformed(#"sent a Content-Length that is not one number: "+3""#)) {
            try read("HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\n")
        }
        // The same length twice is one length.
        #expect((try? read("HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc"))??.body == "abc")
    }

    @Test func chunkFramingThatIsWrongIsRefused() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(throws: AnswerProblem.malformed(#"sent a chunk size that is not hexadecimal: "zz""#)) { try read(head + "zz\r\n") }
        #expect(throws: AnswerProblem.malformed(#"sent a chunk size line that is not a size and extensions: "5 x""#)) {
            try read(head + "5 x\r\nhello\r\n")
        }
        #expect(throws: AnswerProblem.malformed("sent a chunk longer than its size")) { try read(head + "2\r\nabc\r\n") }
        #expect(throws: AnswerProblem.malformed("sent a chunk that does not end in CRLF")) { try read(head + "2\r\nab\rx") }
        #expect(throws: AnswerProblem.malformed("sent a chunk line that does not end in CRLF")) { try read(head + "2\nab\r\n") }
    }

    @Test func eachBoundEndsTheAnswerAsTooLarge() {
        #expect(throws: AnswerProblem.tooLarge("sent an answer head over 256 bytes")) {
            try read("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 300) + "\r\n\r\n")
        }
        #expect(throws: AnswerProblem.tooLarge("sent more than 4 header fields")) {
            try read("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n")
        }
        #expect(throws: AnswerProblem.tooLarge("sent a Content-Length of 33 bytes, over the bound of 32")) {
            try read("HTTP/1.1 200 OK\r\nContent-Length: 33\r\n\r\n")
        }
        #expect(throws: AnswerProblem.tooLarge("sent an answer body over 32 bytes")) {
            try read("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "b", count: 33))
        }
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(throws: AnswerProblem.tooLarge("sent an answer body over 32 bytes")) {
            try read(chunked + "10\r\n" + String(repeating: "c", count: 16) + "\r\n11\r\n")
        }
        #expect(throws: AnswerProblem.tooLarge("sent an answer body over 32 bytes")) { try read(chunked + "ffffffffffffffffffff\r\n") }
        #expect(throws: AnswerProblem.tooLarge("sent a chunk size line over 24 bytes")) {
            try read(chunked + "1;" + String(repeating: "e", count: 30) + "\r\n")
        }
        #expect(throws: AnswerProblem.tooLarge("sent a trailer section over 40 bytes")) {
            try read(chunked + "0\r\nX-Trailer: " + String(repeating: "t", count: 40) + "\r\n\r\n")
        }
        // Interim heads share the head's budget.
        #expect(throws: AnswerProblem.tooLarge("sent an answer head over 256 bytes")) {
            try read(String(repeating: "HTTP/1.1 103 Early Hints\r\n\r\n", count: 10))
        }
    }

    @Test func anAnswerCutShortIsTruncated() {
        let truncated = AnswerProblem(kind: .truncated, words: "closed the connection before the answer's end")
        #expect(throws: truncated) { try read("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", closes: true) }
        #expect(throws: truncated) { try read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", closes: true) }
        #expect(throws: truncated) { try read("HTTP/1.1 200 OK\r\nContent", closes: true) }
        #expect(throws: AnswerProblem(kind: .truncated, words: "closed the connection without an answer")) {
            try read("", closes: true)
        }
    }
}
