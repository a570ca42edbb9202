/// A JSON value as RFC 8259 defines it.
///
/// Numbers keep their literal text (`JSONNumber`), so nothing is lost between parsing and
/// writing; objects keep their members in source order with duplicates (`JSONObject`).
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

extension JSON {
    /// The value of the member `key` (its last occurrence); nil when absent or not an object.
    public subscript(key: String) -> JSON? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The string, or nil when this is not a string.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The boolean, or nil when this is not `true` or `false`.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The number as an exact `Int64` (see `JSONNumber.int64`); nil for non-numbers,
    /// fractions and integers out of range.
    public var int64Value: Int64? {
        guard case .number(let number) = self else { return nil }
        return number.int64
    }

    /// The number as the nearest `Double`; nil for non-numbers and numbers beyond
    /// `Double`'s range.
    public var doubleValue: Double? {
        guard case .number(let number) = self else { return nil }
        return number.double
    }

    /// The elements, or nil when this is not an array.
    public var arrayValue: [JSON]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members, or nil when this is not an object.
    public var objectValue: JSONObject? {
        guard case .object(let object) = self else { return nil }
        return object
    }

    /// A key that occurs more than once in one object, at any depth (this value first, then
    /// its members and elements in order); nil when there is none. For a caller that must
    /// refuse ambiguous messages as a whole (MCP's JSON-RPC messages).
    public var firstDuplicateKey: String? {
        switch self {
        case .object(let object):
            if let key = object.firstDuplicateKey { return key }
            for member in object.members {
                if let key = member.value.firstDuplicateKey { return key }
            }
            return nil
        case .array(let elements):
            for element in elements {
                if let key = element.firstDuplicateKey { return key }
            }
            return nil
        default:
            return nil
        }
    }

    /// True for `null` only.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Compact JSON text (no whitespace), in UTF-8.
    public func encoded() -> [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.bytes
    }
}

extension JSON: CustomStringConvertible {
    /// Compact JSON text, as `encoded()` writes it.
    public var description: String {
        String(decoding: encoded(), as: UTF8.self)
    }
}
