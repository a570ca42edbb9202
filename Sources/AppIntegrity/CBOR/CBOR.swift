/// One decoded CBOR data item (RFC 8949 section 3). App Attest sends its attestation object,
/// the COSE key and the authenticator data extensions in CBOR (`app-integrity.md#what-the-server-validates`).
///
/// Indefinite-length strings arrive joined, so a value does not say how it was encoded; the
/// decoder has already refused every encoding it does not accept.
public indirect enum CBOR: Hashable, Sendable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is -1 - n, kept as n so the whole range fits.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3, valid UTF-8.
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5, in the order of the input; keys are distinct.
    case map([Entry])
    /// Major type 6.
    case tagged(UInt64, CBOR)
    /// Major type 7: false, true, null, undefined.
    case bool(Bool)
    case null
    case undefined
    /// Major type 7: an unassigned simple value (0...19 or 32...255).
    case simple(UInt8)
    /// Major type 7: half, single or double precision, widened.
    case float(Double)

    /// One key and value of a map.
    public struct Entry: Hashable, Sendable {
        public let key: CBOR
        public let value: CBOR

        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// The value under `key` when this is a map.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// The value under the text key `name` when this is a map.
    public subscript(name: String) -> CBOR? { self[.text(name)] }

    /// The value under the integer key `number` when this is a map (COSE keys use negative labels).
    public subscript(label number: Int64) -> CBOR? {
        self[number >= 0 ? .unsigned(UInt64(number)) : .negative(UInt64(-1 - number))]
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var arrayValue: [CBOR]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The value as a signed integer when it fits.
    public var integerValue: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }
}
