/// Header fields in the order they came or will go, names kept as written and looked up
/// without regard to case (RFC 9110 5.1). A name may come more than once.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// The first value of `name`, or nil.
    public subscript(_ name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// The values of `name` as one comma-separated list, each element trimmed, empty ones
    /// left out (RFC 9110 5.3: several lines of a list field are one list).
    public func list(_ name: String) -> [Substring] {
        values(name).flatMap { $0.split(separator: ",") }.map(\.trimmingWhitespace).filter { !$0.isEmpty }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.elementsEqual(b.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive equality: field names are tokens, ASCII only.
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { Self.lower($0) == Self.lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// A `token` of RFC 9110 5.6.2: what a field name (and a method) is made of.
    static func isToken<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A field value that cannot end its line or hide another one: no CR, LF or NUL, nor
    /// another control byte but HTAB (RFC 9110 5.5).
    static func isFieldValue<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}

extension Substring {
    /// Without the spaces and tabs at either end (HTTP's optional whitespace).
    var trimmingWhitespace: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
