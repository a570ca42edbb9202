/// Takes the chunked framing off a body (RFC 9112 section 7.1) as the bytes come, each part
/// bounded: a size line (hex size, extensions) by `maxChunkLineBytes`, the data by
/// `maxBodyBytes` (judged from each chunk's size before its data arrives), the trailer
/// section by `maxTrailerBytes`. Extensions and trailer fields are read and dropped.
struct ChunkedBodyReader {
    private enum State {
        case sizeLine
        case data(remaining: Int)
        case dataCR, dataLF
        case trailers
        case done
    }

    private let limits: HTTPClientLimits
    private var state = State.sizeLine
    private var line: [UInt8] = []
    private var trailerBytes = 0

    init(limits: HTTPClientLimits) {
        self.limits = limits
    }

    /// Takes bytes from the start of `bytes`, appending the data to `body`: how many it used
    /// once the last chunk and the trailer section are in, or nil when it wants more.
    mutating func take(_ bytes: ArraySlice<UInt8>, into body: inout [UInt8]) throws(AnswerProblem) -> Int? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .data(let remaining):
                let end = min(bytes.endIndex, index + remaining)
                body.append(contentsOf: bytes[index..<end])
                state = remaining == end - index ? .dataCR : .data(remaining: remaining - (end - index))
                index = end
                continue
            case .dataCR:
                guard bytes[index] == 0x0D else { throw .malformed("sent a chunk longer than its size") }
                state = .dataLF
            case .dataLF:
                guard bytes[index] == 0x0A else { throw .malformed("sent a chunk that does not end in CRLF") }
                state = .sizeLine
            case .sizeLine, .trailers:
                try takeLineByte(bytes[index], bodyCount: body.count)
            case .done:
                return index - bytes.startIndex
            }
            index += 1
            if case .done = state { return index - bytes.startIndex }
        }
        return nil
    }

    private mutating func takeLineByte(_ byte: UInt8, bodyCount: Int) throws(AnswerProblem) {
        if case .trailers = state {
            trailerBytes += 1
            guard trailerBytes <= limits.maxTrailerBytes else {
                throw .tooLarge("sent a trailer section over \(limits.maxTrailerBytes) bytes")
            }
        } else {
            guard line.count < limits.maxChunkLineBytes else {
                throw .tooLarge("sent a chunk size line over \(limits.maxChunkLineBytes) bytes")
            }
        }
        guard byte == 0x0A else {
            line.append(byte)
            return
        }
        guard line.last == 0x0D else { throw .malformed("sent a chunk line that does not end in CRLF") }
        line.removeLast()
        defer { line.removeAll(keepingCapacity: true) }
        if case .trailers = state {
            guard !line.isEmpty else {
                state = .done
                return
            }
            guard HTTPHeaders.isFieldValue(line) else { throw .malformed("sent a control byte in a trailer field") }
            return
        }
        let size = try Self.size(line, bodyCount: bodyCount, maxBody: limits.maxBodyBytes)
        state = size == 0 ? .trailers : .data(remaining: size)
    }

    /// The hex size at the start of a size line, then nothing or extensions (`;` after
    /// optional whitespace). A size that would take the body over its bound is refused here,
    /// before its data arrives.
    private static func size(_ line: [UInt8], bodyCount: Int, maxBody: Int) throws(AnswerProblem) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = hexValue(line[index]) {
            size = size * 16 + digit
            guard bodyCount + size <= maxBody else { throw .tooLarge("sent an answer body over \(maxBody) bytes") }
            index += 1
        }
        guard index > 0 else { throw .malformed("sent a chunk size that is not hexadecimal: \(AnswerProblem.quote(line))") }
        var rest = line[index...]
        while let first = rest.first, first == 0x20 || first == 0x09 { rest = rest.dropFirst() }
        guard rest.isEmpty || (rest.first == 0x3B && HTTPHeaders.isFieldValue(rest)) else {
            throw .malformed("sent a chunk size line that is not a size and extensions: \(AnswerProblem.quote(line))")
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }
}
