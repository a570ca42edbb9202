extension TextRule {
    /// `check` for a text of printable ASCII only (bytes 0x20 to 0x7E), the usual title and
    /// label, in one pass over its bytes; nil for any other text, which `check` reads scalar
    /// by scalar. The rules give the same answer there: no such byte is a control character,
    /// the only white space among them is the space, each is a grapheme cluster of one scalar,
    /// and none is default-ignorable, so the text is invisible only when it is all spaces. A
    /// text already in its normal form is kept as it came, without a copy.
    ///
    /// Unicode's scalar properties cost about 800 instructions a character: the title of a
    /// task write ("Benchmark task 1234") took 29,000 instructions, this about 1,000.
    func checkPrintableASCII(_ original: String) -> Result<CheckedText, TextProblem>? {
        var raw = original
        return raw.withUTF8 { bytes -> Result<CheckedText, TextProblem>? in
            var first = -1
            var last = -1
            var doubled = false
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte >= 0x20 && byte <= 0x7E else { return nil }
                if byte == 0x20 {
                    if index > 0 && bytes[index - 1] == 0x20 { doubled = true }
                    continue
                }
                if first < 0 { first = index }
                last = index
            }
            let text: String
            let count: Int
            if first < 0 {
                // Only spaces, or nothing.
                text = oneLine || trimmed ? "" : String(decoding: bytes, as: UTF8.self)
                count = text.utf8.count
            } else if oneLine && (doubled || first > 0 || last < bytes.count - 1) {
                text = Self.foldedSpaces(UnsafeBufferPointer(rebasing: bytes[first...last]))
                count = text.utf8.count
            } else if (oneLine || trimmed) && (first > 0 || last < bytes.count - 1) {
                text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first...last]), as: UTF8.self)
                count = last - first + 1
            } else {
                text = original
                count = bytes.count
            }
            guard characters.contains(count) else { return .failure(.length(characters)) }
            if characters.lowerBound > 0 && first < 0 { return .failure(.invisible) }
            return .success(CheckedText(text))
        }
    }

    /// The bytes with each run of spaces made one (they start and end with another byte).
    private static func foldedSpaces(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            var written = 0
            for (index, byte) in bytes.enumerated() where byte != 0x20 || bytes[index - 1] != 0x20 {
                out[written] = byte
                written += 1
            }
            return written
        }
    }
}
