/// `chunk-size [ chunk-ext ]` (RFC 9112 7.1), the line before each chunk's data.
enum ChunkSizeLine {
    /// Parses a size line without its CRLF. Extensions are checked for stray control bytes
    /// and otherwise ignored: none is defined that this server would act on.
    ///
    /// A size that does not fit an Int is refused as 413 rather than 400: it is a well-formed
    /// number, only far over any body limit (the same answer as such a Content-Length).
    static func parse(_ line: UnsafeRawBufferPointer) -> Result<Int, HTTPParseError> {
        var size = 0
        var k = 0
        while k < line.count, let digit = ASCII.hexValue(line[k]) {
            let (times16, o1) = size.multipliedReportingOverflow(by: 16)
            let (sum, o2) = times16.addingReportingOverflow(digit)
            if o1 || o2 { return .failure(.payloadTooLarge) }
            size = sum
            k += 1
        }
        guard k > 0 else { return .failure(.badRequest("invalid chunk size")) }
        guard k < line.count else { return .success(size) }
        // BWS is allowed before the ';' of an extension, nowhere else.
        while k < line.count && ASCII.isWhitespace(line[k]) { k += 1 }
        guard k < line.count, line[k] == ASCII.semicolon else {
            return .failure(.badRequest("invalid chunk size"))
        }
        while k < line.count {
            guard ASCII.isFieldValueByte(line[k]) else {
                return .failure(.badRequest("control byte in a chunk extension"))
            }
            k += 1
        }
        return .success(size)
    }
}
