/// Where one field's name and value sit in the head bytes.
struct FieldRange: Sendable {
    var nameStart: Int
    var nameEnd: Int
    var valueStart: Int
    var valueEnd: Int
}

/// The `field-line` rule (RFC 9112 5), shared by the head and the chunked trailer section.
enum FieldLine {
    /// Parses `name ":" OWS value OWS` in `p[start..<end]` (the line without its CRLF).
    ///
    /// Stricter than the RFC's "MAY": obs-fold and whitespace before the colon are refused
    /// rather than repaired, because a proxy in front of us might read them otherwise
    /// (RFC 9112 5.1, 5.2).
    static func parse(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) throws(HTTPParseError) -> FieldRange {
        if ASCII.isWhitespace(p[start]) {
            throw .badRequest("obs-fold or whitespace at the start of a field line")
        }
        var k = start
        while k < end && ASCII.isTchar(p[k]) { k += 1 }
        guard k < end else { throw .badRequest("field line without a colon") }
        if p[k] != ASCII.colon {
            if ASCII.isWhitespace(p[k]) { throw .badRequest("whitespace before the colon of a field") }
            throw .badRequest("invalid byte in a field name")
        }
        guard k > start else { throw .badRequest("empty field name") }
        let nameEnd = k
        k += 1
        while k < end && ASCII.isWhitespace(p[k]) { k += 1 }
        let valueStart = k
        guard ASCII.areFieldValueBytes(p, from: valueStart, to: end) else {
            throw .badRequest("control byte in a field value")
        }
        var valueEnd = end
        while valueEnd > valueStart && ASCII.isWhitespace(p[valueEnd - 1]) { valueEnd -= 1 }
        return FieldRange(nameStart: start, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd)
    }
}
