/// A strict RFC 8259 parser: one value of any kind at top level, whitespace only around it,
/// the exact number grammar, well-formed UTF-8, no byte order mark.
///
/// It never recurses: open arrays and objects live on an explicit stack of at most `maxDepth`
/// entries, so hostile nesting costs a bounded amount of memory and no call stack. Time is
/// linear in the input.
public enum JSONParser {
    /// Deep enough for any request body of the contract, shallow enough to stop abuse early.
    public static let defaultMaxDepth = 64
    /// Non-empty arrays and objects one document may hold; one more throws
    /// `tooManyContainers`. Building a value costs an allocation per non-empty container
    /// (`[[[1]]]` repeated to a megabyte took 52 ms where a flat array of numbers takes 7),
    /// and no request of the contract holds more than a few dozen; 10,000 keeps the worst
    /// body within about a millisecond of building, like the depth bound keeps its nesting.
    public static let defaultMaxContainers = 10_000

    /// Parses `bytes` as one JSON text. Arrays and objects may nest `maxDepth` levels deep
    /// (`[[1]]` is two levels); one level more throws `depthLimitExceeded`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth, maxContainers: Int = defaultMaxContainers) throws(JSONParseError) -> JSON {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth, maxContainers: maxContainers)
        return try parser.parseDocument()
    }

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, maxContainers: Int = defaultMaxContainers) throws(JSONParseError) -> JSON {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSON in try parse(buffer, maxDepth: maxDepth, maxContainers: maxContainers) }
        }.get()
    }

    /// Offsets in errors count from the start of the slice, not of its base array.
    public static func parse(_ bytes: ArraySlice<UInt8>, maxDepth: Int = defaultMaxDepth, maxContainers: Int = defaultMaxContainers) throws(JSONParseError) -> JSON {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSON in try parse(buffer, maxDepth: maxDepth, maxContainers: maxContainers) }
        }.get()
    }

    /// Checks that `bytes` is one JSON text that `parse` would accept with the same
    /// `maxDepth`, and throws the error `parse` would throw, without building the value:
    /// no allocation per value, so refusing or accepting a large body costs a scan of its
    /// bytes (the API runs this before the credential, and the full parse after it).
    public static func validate(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth, maxContainers: Int = defaultMaxContainers) throws(JSONParseError) {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth, maxContainers: maxContainers)
        try parser.validateDocument()
    }

    public static func validate(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, maxContainers: Int = defaultMaxContainers) throws(JSONParseError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try validate(buffer, maxDepth: maxDepth, maxContainers: maxContainers) }
        }.get()
    }

    /// Parses the UTF-8 of `text`.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth, maxContainers: Int = defaultMaxContainers) throws(JSONParseError) -> JSON {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSON in try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth, maxContainers: maxContainers) }
        }.get()
    }
}
