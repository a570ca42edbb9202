/// Reads one answer head (RFC 9112 sections 4 and 5) from bytes as they come, a line at a
/// time, within a byte budget and a field count. Lines end in CRLF; a bare LF, a folded line
/// (obs-fold), whitespace before a field's colon or a control byte in a value is refused
/// rather than guessed at: the servers this client talks to have no reason to send them.
struct ResponseHeadReader {
    /// The bytes the answer's heads may take, line ends included.
    private let maxBytes: Int
    private let maxFields: Int
    private var line: [UInt8] = []
    private var statusLine: (version: String, status: Int, reason: String)?
    private var headers = HTTPHeaders()
    /// The head's bytes taken so far, with those of the interim heads before it.
    private(set) var consumed: Int
    /// The whole head, once its blank line is in.
    private(set) var head: ResponseHead?

    /// `before`: the bytes of the interim heads already read, which count against `maxBytes`.
    init(maxBytes: Int, maxFields: Int, before: Int = 0) {
        self.maxBytes = maxBytes
        self.maxFields = maxFields
        consumed = before
    }

    /// Takes bytes from the start of `bytes`: how many it used once the head has ended (the
    /// rest is the body's), or nil when it used them all and the head goes on.
    mutating func take(_ bytes: ArraySlice<UInt8>) throws(AnswerProblem) -> Int? {
        for index in bytes.indices {
            consumed += 1
            guard consumed <= maxBytes else { throw .tooLarge("sent an answer head over \(maxBytes) bytes") }
            let byte = bytes[index]
            guard byte == 0x0A else {
                line.append(byte)
                continue
            }
            guard line.last == 0x0D else { throw .malformed("sent a line that does not end in CRLF") }
            line.removeLast()
            try endLine()
            line.removeAll(keepingCapacity: true)
            if head != nil { return index - bytes.startIndex + 1 }
        }
        return nil
    }

    private mutating func endLine() throws(AnswerProblem) {
        guard let statusLine else {
            self.statusLine = try Self.statusLine(line)
            return
        }
        if line.isEmpty {
            head = ResponseHead(version: statusLine.version, status: statusLine.status, reason: statusLine.reason, headers: headers)
            return
        }
        guard line[0] != 0x20 && line[0] != 0x09 else { throw .malformed("sent a folded header line (obs-fold)") }
        guard let colon = line.firstIndex(of: 0x3A), HTTPHeaders.isToken(line[..<colon]) else {
            throw .malformed("sent a header line that is not a field: \(AnswerProblem.quote(line))")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard HTTPHeaders.isFieldValue(value) else {
            throw .malformed("sent a control byte in the value of \(AnswerProblem.quote(line[..<colon]))")
        }
        guard headers.count < maxFields else { throw .tooLarge("sent more than \(maxFields) header fields") }
        headers.add(String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]`, the status 100 to 599 (RFC 9110 15). The space and
    /// reason after the code may be missing; some servers leave them out.
    private static func statusLine(_ line: [UInt8]) throws(AnswerProblem) -> (version: String, status: Int, reason: String) {
        let refused = AnswerProblem.malformed("sent a status line that is not HTTP/1.x: \(AnswerProblem.quote(line))")
        guard line.count >= 12, line.starts(with: Array("HTTP/1.".utf8)), line[7] == 0x30 || line[7] == 0x31,
              line[8] == 0x20 else { throw refused }
        let digits = line[9..<12]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), line.count == 12 || line[12] == 0x20 else { throw refused }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let reason = line.count > 13 ? line[13...] : []
        guard (100...599).contains(status), HTTPHeaders.isFieldValue(reason) else { throw refused }
        return (String(decoding: line[0..<8], as: UTF8.self), status, String(decoding: reason, as: UTF8.self))
    }
}
