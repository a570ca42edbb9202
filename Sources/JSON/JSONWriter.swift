/// Writes JSON text straight into bytes, with commas placed automatically.
///
/// One flag instead of a stack: a value or `begin*` writes a comma first when the flag is set;
/// `key` writes a comma when set, then `"key":`, and clears it; a value and `end*` set it;
/// `begin*` clears it. The writer trusts its caller to nest calls properly (a key before each
/// object member, balanced begin/end): it is used by code, not fed by clients.
public struct JSONWriter: Sendable {
    /// The text written so far, in UTF-8.
    public var bytes: [UInt8]
    private var needsComma = false

    /// An empty writer whose buffer holds `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member name from a literal, copied as is: it must be plain ASCII that needs no
    /// escaping (checked in debug builds). The `String` overload is disfavoured, so
    /// `writer.key("id")` picks this one.
    public mutating func key(_ key: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { name in
            assert(!name.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }, "key needs escaping")
            bytes.append(contentsOf: name)
        }
        appendASCII("\":")
        needsComma = false
    }

    /// A member name, escaped as needed.
    @_disfavoredOverload
    public mutating func key(_ key: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        var key = key
        key.withUTF8 { appendQuoted($0) }
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    @_disfavoredOverload
    public mutating func string(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { appendQuoted($0) }
        needsComma = true
    }

    @_disfavoredOverload
    public mutating func string(_ value: Substring) {
        separate()
        var value = value
        value.withUTF8 { appendQuoted($0) }
        needsComma = true
    }

    /// A string from a literal; escaped like any other, since a literal may hold a newline.
    public mutating func string(_ value: StaticString) {
        separate()
        value.withUTF8Buffer { appendQuoted($0) }
        needsComma = true
    }

    /// The string, or `null` when nil.
    @_disfavoredOverload
    public mutating func string(_ value: String?) {
        if let value {
            string(value)
        } else {
            null()
        }
    }

    public mutating func null() {
        separate()
        appendASCII("null")
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        appendASCII(value ? "true" : "false")
        needsComma = true
    }

    /// A pre-encoded JSON value, copied as is (the caller vouches that it is valid JSON).
    public mutating func rawValue(_ jsonText: some Collection<UInt8>) {
        separate()
        bytes.append(contentsOf: jsonText)
        needsComma = true
    }

    /// Any JSON value; objects keep their member order and duplicates.
    public mutating func value(_ value: JSON) {
        switch value {
        case .null:
            null()
        case .bool(let flag):
            bool(flag)
        case .number(let number):
            self.number(number)
        case .string(let text):
            string(text)
        case .array(let elements):
            beginArray()
            for element in elements {
                self.value(element)
            }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    @inline(__always)
    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    mutating func markValueWritten() {
        needsComma = true
    }

    /// Literal text from the writer itself (no escaping, no array literal to allocate).
    @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
