/// A parameter of a statement. Each goes in the format its type is exact in without knowing
/// the parameter's type on the server (the statement is parsed without types, so the server
/// infers them): numbers, booleans and text as text, which the server parses into whatever
/// type the parameter has; bytes as binary, which is `bytea`'s raw form.
public enum PostgresValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case text(String)
    case bytes([UInt8])

    var isBinary: Bool {
        if case .bytes = self { return true }
        return false
    }

    /// The text sent for a value that goes as text; nil for NULL and bytes.
    var text: String? {
        switch self {
        case .null, .bytes: return nil
        case .integer(let value): return String(value)
        case .double(let value):
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
            // Swift's description is the shortest text that reads back as the same Double.
            return value.description
        case .bool(let value): return value ? "true" : "false"
        case .text(let value): return value
        }
    }
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral,
    ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
