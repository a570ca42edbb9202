/// Reads one whole answer from the bytes of a connection as they come: interim `1xx` heads
/// skipped, then the final head, then the body framed as RFC 9112 section 6.3 says (none
/// for `HEAD`, `204` and `304`; `chunked`; `Content-Length`; else until the peer closes),
/// every part within `HTTPClientLimits`. A value: the fetch feeds it, tests feed it bytes.
struct ResponseDecoder {
    private enum Stage {
        case head(ResponseHeadReader)
        case length(remaining: Int)
        case chunked(ChunkedBodyReader)
        case untilClose
        case done
    }

    private let limits: HTTPClientLimits
    private let isHEAD: Bool
    private let readsBody: Bool
    private var stage: Stage
    private(set) var head: ResponseHead?
    private(set) var body: [UInt8] = []

    init(limits: HTTPClientLimits, isHEAD: Bool, readsBody: Bool) {
        self.limits = limits
        self.isHEAD = isHEAD
        self.readsBody = readsBody
        stage = .head(ResponseHeadReader(maxBytes: limits.maxHeadBytes, maxFields: limits.maxHeaderCount))
    }

    var isComplete: Bool {
        if case .done = stage { true } else { false }
    }

    /// Takes the bytes that arrived; true once the answer is complete (bytes after its end
    /// are ignored: the connection carries one request).
    mutating func take(_ bytes: ArraySlice<UInt8>) throws(AnswerProblem) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            switch stage {
            case .head(var reader):
                guard let used = try reader.take(rest) else {
                    stage = .head(reader)
                    return false
                }
                rest = rest.dropFirst(used)
                try headEnded(reader)
            case .length(let remaining):
                let taken = rest.prefix(remaining)
                body.append(contentsOf: taken)
                rest = rest.dropFirst(taken.count)
                stage = taken.count == remaining ? .done : .length(remaining: remaining - taken.count)
            case .chunked(var reader):
                guard let used = try reader.take(rest, into: &body) else {
                    stage = .chunked(reader)
                    return false
                }
                stage = .done
                rest = rest.dropFirst(used)
            case .untilClose:
                guard body.count + rest.count <= limits.maxBodyBytes else {
                    throw .tooLarge("sent an answer body over \(limits.maxBodyBytes) bytes")
                }
                body.append(contentsOf: rest)
                return false
            case .done:
                return true
            }
        }
        return isComplete
    }

    /// The peer closed its side: the end of an answer read until then, or one cut short.
    mutating func end() throws(AnswerProblem) {
        switch stage {
        case .untilClose:
            stage = .done
        case .done:
            break
        case .head(let reader) where reader.consumed == 0:
            throw AnswerProblem(kind: .truncated, words: "closed the connection without an answer")
        case .head, .length, .chunked:
            throw AnswerProblem(kind: .truncated, words: "closed the connection before the answer's end")
        }
    }

    private mutating func headEnded(_ reader: ResponseHeadReader) throws(AnswerProblem) {
        let ended = reader.head!
        if ended.status < 200 {
            // An interim answer (`100`, `103`): the final one follows. `101` would switch
            // protocols, which this client never asks for.
            // Every head of the answer shares one budget, so endless `103`s end like one
            // endless head.
            guard ended.status != 101 else { throw .malformed("sent 101 Switching Protocols, which was not asked for") }
            stage = .head(ResponseHeadReader(maxBytes: limits.maxHeadBytes, maxFields: limits.maxHeaderCount, before: reader.consumed))
            return
        }
        head = ended
        stage = try bodyStage(ended)
    }

    private func bodyStage(_ head: ResponseHead) throws(AnswerProblem) -> Stage {
        if !readsBody || isHEAD || head.status == 204 || head.status == 304 { return .done }
        let codings = head.headers.list("Transfer-Encoding")
        let lengths = head.headers.list("Content-Length")
        if !head.headers.values("Transfer-Encoding").isEmpty {
            // Only `chunked` is read: this client asks for no other coding, and a length
            // beside it is how responses are smuggled (RFC 9112 6.3, point 3).
            guard codings.count == 1, HTTPHeaders.same(String(codings[0]), "chunked") else {
                throw .malformed("sent a transfer coding other than chunked: \(AnswerProblem.quote(codings.joined(separator: ", ").utf8))")
            }
            guard head.version == "HTTP/1.1" else { throw .malformed("sent Transfer-Encoding in an HTTP/1.0 answer") }
            guard head.headers.values("Content-Length").isEmpty else {
                throw .malformed("sent both Transfer-Encoding and Content-Length")
            }
            return .chunked(ChunkedBodyReader(limits: limits))
        }
        guard !head.headers.values("Content-Length").isEmpty else { return .untilClose }
        // Repeated values must agree (RFC 9112 6.3, point 5).
        guard let first = lengths.first, lengths.allSatisfy({ $0 == first }), first.utf8.count <= 18,
              first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(first) else {
            throw .malformed("sent a Content-Length that is not one number: \(AnswerProblem.quote(head.headers.values("Content-Length").joined(separator: ", ").utf8))")
        }
        guard length <= limits.maxBodyBytes else {
            throw .tooLarge("sent a Content-Length of \(length) bytes, over the bound of \(limits.maxBodyBytes)")
        }
        return length == 0 ? .done : .length(remaining: length)
    }
}
