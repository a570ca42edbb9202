/// A JSON number, kept as the literal text it was written as.
///
/// Keeping the text means nothing is rounded until a caller asks for a particular type: ids
/// and counts come out as exact `Int64`s, and a number passed through is written back as it
/// came in. Numbers beyond `Double`'s range ("1e400") are valid JSON and are kept; they answer
/// nil to `double`.
///
/// Equality compares values, not spelling ("40" == "4e1" == "40.0", "-0" == "0"):
/// - two numbers that are exact `Int64`s compare as `Int64`s;
/// - an exact `Int64` never equals a number that is not one (a fraction or a larger integer);
/// - other numbers compare as `Double`s, so two that round to the same `Double` are equal;
/// - a number beyond `Double`'s range equals only the same literal text.
public struct JSONNumber: Sendable, Equatable, CustomStringConvertible {
    /// A literal that is an `Int64` written as `String(Int64)` writes it (no sign on zero, no
    /// fraction, no exponent) is kept as the integer, the rest as text: most numbers of a
    /// request are small integers, and holding them as text cost a `String` each to parse.
    private enum Storage: Sendable {
        case integer(Int64)
        case text(String)
    }

    private let storage: Storage

    /// The number as written; always matches the JSON number grammar.
    public var literal: String {
        switch storage {
        case .integer(let value): String(value)
        case .text(let text): text
        }
    }

    /// The integer, in decimal.
    public init(_ value: Int64) {
        storage = .integer(value)
    }

    /// The integer, in decimal.
    public init(_ value: Int) {
        storage = .integer(Int64(value))
    }

    /// The shortest text that reads back as the same `Double`; nil for NaN and infinities,
    /// which JSON cannot express.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        storage = .text(DoubleText.literal(value))
    }

    /// The number `literal` spells; nil unless it is exactly one JSON number (no whitespace,
    /// no leading `+`, no leading zeros, no hex, no NaN or Infinity).
    public init?(literal: String) {
        var text = literal
        let integer: Int64?? = text.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            guard NumberGrammar.isValid(bytes) else { return .none }
            return .some(NumberGrammar.plainInteger(bytes, from: 0, to: bytes.count))
        }
        guard let integer else { return nil }
        storage = integer.map { .integer($0) } ?? .text(text)
    }

    /// For the parser, which has already checked the grammar.
    init(validatedLiteral: String) {
        storage = .text(validatedLiteral)
    }

    /// The integer when the number is kept as one (the writer writes its digits directly).
    var storedInteger: Int64? {
        if case .integer(let value) = storage { return value }
        return nil
    }

    /// The exact value when it is an integer within `Int64`, however it is spelled:
    /// "40", "40.0", "4e1" and "400e-1" give 40, "-0" gives 0; "40.5", "1e400" and
    /// "9223372036854775808" give nil.
    public var int64: Int64? {
        if case .integer(let value) = storage { return value }
        return integral.int64
    }

    /// The nearest `Double`; nil when the value overflows to infinity. Tiny values underflow
    /// to zero, as `strtod` does.
    public var double: Double? {
        // Both round to the nearest `Double`, ties to even.
        if case .integer(let value) = storage { return Double(value) }
        guard let value = Double(literal), value.isFinite else { return nil }
        return value
    }

    /// True when the value is integral, whatever its size ("1e400" is; "0.5" is not).
    public var isInteger: Bool {
        if case .integer = storage { return true }
        return integral.isInteger
    }

    /// The literal.
    public var description: String {
        literal
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if case .integer(let left) = lhs.storage, case .integer(let right) = rhs.storage { return left == right }
        if lhs.literal == rhs.literal { return true }
        let left = lhs.int64
        let right = rhs.int64
        if let left, let right { return left == right }
        if (left == nil) != (right == nil) { return false }
        if let leftDouble = lhs.double, let rightDouble = rhs.double {
            return leftDouble == rightDouble
        }
        return false
    }

    private var integral: NumberValue.Integral {
        var text = literal
        return text.withUTF8 { NumberValue.integral(UnsafeRawBufferPointer($0)) }
    }
}
