import Testing
import HTTP

@Suite struct ParserPipeliningTests {
    static let first = "GET /one HTTP/1.1\r\nHost: h\r\n\r\n"
    static let second = "POST /two HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
    static let third = "POST /three HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"

    /// Each call returns one event and consumes only the bytes of that event.
    @Test func threeRequestsInOneBufferGiveExactConsumedCounts() {
        let all = Array((Self.first + Self.second + Self.third).utf8)
        var parser = HTTPRequestParser()
        var offset = 0
        var steps: [(String, Int)] = []
        while offset < all.count || parser.isReadingBody {
            let (event, consumed) = all[offset...].withUnsafeBytes { parser.parse($0) }
            offset += consumed
            switch event {
            case .head(let head): steps.append(("head \(head.target)", consumed))
            case .end(let body): steps.append(("end \(String(decoding: body, as: UTF8.self))", consumed))
            case .needMore: steps.append(("needMore", consumed))
            case .error(let error): steps.append(("error \(error)", consumed)); offset = all.count
            }
        }
        let secondHead = Self.second.utf8.count - 5
        let thirdBody = "3\r\nabc\r\n0\r\n\r\n".utf8.count
        let thirdHead = Self.third.utf8.count - thirdBody
        #expect(steps.map(\.0) == ["head /one", "end ", "head /two", "end hello", "head /three", "end abc"])
        #expect(steps.map(\.1) == [Self.first.utf8.count, 0, secondHead, 5, thirdHead, thirdBody])
        #expect(offset == all.count)
        #expect(parser.isIdle)
    }

    @Test func bytesAfterABodyAreLeftForTheNextRequest() {
        let all = Array((Self.second + "GET").utf8)
        var parser = HTTPRequestParser()
        let head = all.withUnsafeBytes { parser.parse($0) }
        let rest = all[head.consumed...]
        let end = rest.withUnsafeBytes { parser.parse($0) }
        guard case .end(let body) = end.event else { Issue.record("expected end"); return }
        #expect(body == Array("hello".utf8))
        #expect(end.consumed == 5)
        #expect(Array(rest.dropFirst(end.consumed)) == Array("GET".utf8))
    }

    @Test func partialBodyIsConsumedAndAsksForMore() {
        var parser = HTTPRequestParser()
        let headBytes = Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n".utf8)
        _ = headBytes.withUnsafeBytes { parser.parse($0) }
        let part = Array("12345".utf8).withUnsafeBytes { parser.parse($0) }
        guard case .needMore = part.event else { Issue.record("expected needMore"); return }
        #expect(part.consumed == 5)
        let tail = Array("67890GET".utf8).withUnsafeBytes { parser.parse($0) }
        guard case .end(let body) = tail.event else { Issue.record("expected end"); return }
        #expect(body == Array("1234567890".utf8))
        #expect(tail.consumed == 5)
    }
}
