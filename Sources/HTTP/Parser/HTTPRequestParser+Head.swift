extension HTTPRequestParser {
    typealias Step = (event: HTTPParserEvent, consumed: Int)

    /// Accumulates head bytes until the blank line, scanning only the new bytes, then parses
    /// the whole head in one pass. Limits are enforced on the way, so a client that never
    /// sends the blank line is refused as soon as it is over a limit, not when it stops.
    mutating func parseHead(_ buf: UnsafeRawBufferPointer) -> Step {
        var start = 0
        if headBuffer.isEmpty {
            switch skipEmptyLines(buf) {
            case .failure(let error): return fail(error, consumed: 0)
            case .success(let skipped): start = skipped
            }
            if start == buf.count { return (.needMore, start) }
        }
        // Offset in the head of buf[k] is `base + k`.
        let base = headBuffer.count - start
        let allowed = max(limits.maxHeadBytes - headBuffer.count, 0)
        let scanEnd = start + min(buf.count - start, allowed)
        var k = start
        while let lf = ASCII.firstLF(buf, from: k, to: scanEnd) {
            let previous: UInt8? = lf > start ? buf[lf - 1] : headBuffer.last
            let endsWithCRLF = previous == ASCII.cr
            let lineLength = base + lf - lineStart - (endsWithCRLF ? 1 : 0)
            // The length before the line ending, so the answer is the one a split read
            // would give, where the length is over before the LF arrives.
            if lineStart == 0 && lineLength > limits.maxRequestLineBytes { return fail(.uriTooLong, consumed: lf) }
            guard endsWithCRLF else { return fail(.badRequest("bare LF in the head"), consumed: lf) }
            // The request line itself is parsed with the rest once the head is complete.
            if lineStart > 0 {
                if lineLength == 0 { return completeHead(buf, start: start, end: lf + 1) }
                fieldLines += 1
                if fieldLines > limits.maxHeaderCount { return fail(.headersTooLarge, consumed: lf) }
            }
            lineStart = base + lf + 1
            k = lf + 1
        }
        if lineStart == 0 {
            // Still on the request line: a trailing CR may yet be the start of its CRLF.
            var length = base + scanEnd
            let last: UInt8? = scanEnd > start ? buf[scanEnd - 1] : headBuffer.last
            if last == ASCII.cr { length -= 1 }
            if length > limits.maxRequestLineBytes { return fail(.uriTooLong, consumed: scanEnd) }
        }
        if scanEnd < buf.count { return fail(.headersTooLarge, consumed: scanEnd) }
        headBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[start..<buf.count]))
        return (.needMore, buf.count)
    }

    /// Skips the empty lines a client may send before a request line (RFC 9112 2.2),
    /// returning how many bytes they took.
    private mutating func skipEmptyLines(_ buf: UnsafeRawBufferPointer) -> Result<Int, HTTPParseError> {
        var i = 0
        while i < buf.count {
            let b = buf[i]
            if pendingEmptyLineCR {
                guard b == ASCII.lf else { return .failure(.badRequest("bare CR in the head")) }
                pendingEmptyLineCR = false
                emptyLinesSkipped += 1
                if emptyLinesSkipped > Self.maxEmptyLinesBeforeRequest {
                    return .failure(.badRequest("too many empty lines before the request line"))
                }
            } else if b == ASCII.cr {
                pendingEmptyLineCR = true
            } else if b == ASCII.lf {
                return .failure(.badRequest("bare LF in the head"))
            } else {
                break
            }
            i += 1
        }
        return .success(i)
    }

    /// The blank line ends at `buf[end - 1]`: parse the head and choose how to read the body.
    private mutating func completeHead(_ buf: UnsafeRawBufferPointer, start: Int, end: Int) -> Step {
        let bytes: [UInt8]
        if headBuffer.isEmpty {
            // The common case: the whole head came in one read, copied once.
            bytes = [UInt8](UnsafeRawBufferPointer(rebasing: buf[start..<end]))
        } else {
            headBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[start..<end]))
            bytes = headBuffer
            headBuffer = []
        }
        lineStart = 0
        fieldLines = 0
        emptyLinesSkipped = 0

        let head: HTTPRequestHead
        do throws(HTTPParseError) {
            head = try HTTPRequestHead(parsing: bytes, limits: limits)
        } catch {
            return fail(error, consumed: end)
        }
        if head.isChunked {
            state = .chunkSizeLine
        } else if let length = head.contentLength, length > 0 {
            // A declared length is a claim, not bytes: reserve up to a bound and let the
            // array grow as bytes arrive, so a raised body limit cannot be turned into
            // large idle allocations by headers alone.
            body.reserveCapacity(min(length, Self.maxBodyReservation))
            state = .fixedBody(remaining: length)
        } else {
            state = .bodyless
        }
        return (.head(head), end)
    }
}
