extension HTTPRequestParser {
    /// A Content-Length body: copy what is there, end when the count is reached.
    mutating func parseFixedBody(_ buf: UnsafeRawBufferPointer, remaining: Int) -> Step {
        let take = min(remaining, buf.count)
        body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[0..<take]))
        if take == remaining { return finishRequest(consumed: take) }
        state = .fixedBody(remaining: remaining - take)
        return (.needMore, take)
    }

    /// A chunked body (RFC 9112 7.1): size lines, data, CRLFs, the last chunk and trailers,
    /// stepping through as many as the bytes given allow.
    mutating func parseChunked(_ buf: UnsafeRawBufferPointer) -> Step {
        var i = 0
        while true {
            switch state {
            case .chunkSizeLine:
                guard let lf = ASCII.firstLF(buf, from: i, to: buf.count) else {
                    return bufferPartialLine(buf, from: i, limit: limits.maxChunkLineBytes, error: .badRequest("chunk size line too long"))
                }
                if let error = chunkSizeLine(buf, from: i, lf: lf) { return fail(error, consumed: lf) }
                i = lf + 1
            case .chunkData(let remaining):
                guard i < buf.count else { return (.needMore, i) }
                let take = min(remaining, buf.count - i)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[i..<(i + take)]))
                i += take
                state = take == remaining ? .chunkDataEnd(sawCR: false) : .chunkData(remaining: remaining - take)
            case .chunkDataEnd(let sawCR):
                guard i < buf.count else { return (.needMore, i) }
                guard buf[i] == (sawCR ? ASCII.lf : ASCII.cr) else {
                    return fail(.badRequest("chunk data not followed by CRLF"), consumed: i)
                }
                state = sawCR ? .chunkSizeLine : .chunkDataEnd(sawCR: true)
                i += 1
            case .trailers:
                guard let lf = ASCII.firstLF(buf, from: i, to: buf.count) else {
                    if buf.count - i > limits.maxTrailerBytes - trailerBytes {
                        return fail(.headersTooLarge, consumed: i)
                    }
                    trailerBytes += buf.count - i
                    lineBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[i..<buf.count]))
                    return (.needMore, buf.count)
                }
                trailerBytes += lf + 1 - i
                if trailerBytes > limits.maxTrailerBytes { return fail(.headersTooLarge, consumed: lf) }
                switch trailerLine(buf, from: i, lf: lf) {
                case .failure(let error): return fail(error, consumed: lf)
                case .success(true): return finishRequest(consumed: lf + 1)
                case .success(false): i = lf + 1
                }
            case .head, .bodyless, .fixedBody, .failed:
                // Unreachable: parse(_:) only calls here in a chunked state.
                return (.needMore, i)
            }
        }
    }

    /// Keeps the start of a line that has no LF yet, refusing it once it is over `limit`
    /// (the line without its CRLF, so a trailing CR does not count).
    private mutating func bufferPartialLine(_ buf: UnsafeRawBufferPointer, from i: Int, limit: Int, error: HTTPParseError) -> Step {
        var length = lineBuffer.count + buf.count - i
        let last = buf.count > i ? buf[buf.count - 1] : lineBuffer.last
        if last == ASCII.cr { length -= 1 }
        if length > limit { return fail(error, consumed: i) }
        lineBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[i..<buf.count]))
        return (.needMore, buf.count)
    }

    /// Runs `handle` on the whole line ending at `buf[lf]` (without its CRLF), joined with the
    /// part kept from earlier calls, or straight from `buf` when the line came in one piece.
    private mutating func withLine<R>(_ buf: UnsafeRawBufferPointer, from i: Int, lf: Int, _ handle: (UnsafeRawBufferPointer) -> R) -> R? {
        let previous: UInt8? = lf > i ? buf[lf - 1] : lineBuffer.last
        guard previous == ASCII.cr else { return nil }
        if lineBuffer.isEmpty {
            return handle(UnsafeRawBufferPointer(rebasing: buf[i..<(lf - 1)]))
        }
        lineBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[i..<lf]))
        // lineBuffer now ends with the CR (the LF was not copied).
        let result = lineBuffer.withUnsafeBytes { p in handle(UnsafeRawBufferPointer(rebasing: p[0..<(p.count - 1)])) }
        lineBuffer.removeAll(keepingCapacity: true)
        return result
    }

    /// Handles a complete chunk size line; returns the error, if any.
    private mutating func chunkSizeLine(_ buf: UnsafeRawBufferPointer, from i: Int, lf: Int) -> HTTPParseError? {
        // The length first, as a split read finds it before the LF arrives.
        let previous: UInt8? = lf > i ? buf[lf - 1] : lineBuffer.last
        let length = lineBuffer.count + lf - i - (previous == ASCII.cr ? 1 : 0)
        if length > limits.maxChunkLineBytes { return .badRequest("chunk size line too long") }
        guard let parsed = withLine(buf, from: i, lf: lf, ChunkSizeLine.parse) else {
            return .badRequest("bare LF in a chunk size line")
        }
        switch parsed {
        case .failure(let error):
            return error
        case .success(0):
            state = .trailers
            trailerBytes = 0
        case .success(let size):
            guard size <= limits.maxBodyBytes - body.count else { return .payloadTooLarge }
            state = .chunkData(remaining: size)
        }
        return nil
    }

    /// Handles a complete trailer line: `true` for the blank line that ends the message.
    /// Trailer fields are checked with the head's field rules, then dropped: nothing in the
    /// contract uses them, and merging them into the head is a known smuggling vector.
    private mutating func trailerLine(_ buf: UnsafeRawBufferPointer, from i: Int, lf: Int) -> Result<Bool, HTTPParseError> {
        let result = withLine(buf, from: i, lf: lf) { line -> Result<Bool, HTTPParseError> in
            if line.isEmpty { return .success(true) }
            do throws(HTTPParseError) {
                _ = try FieldLine.parse(line, 0, line.count)
                return .success(false)
            } catch {
                return .failure(error)
            }
        }
        return result ?? .failure(.badRequest("bare LF in the trailer section"))
    }
}
