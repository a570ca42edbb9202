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
    /// The number as written; always matches the JSON number grammar.
    public let literal: String

    /// The integer, in decimal.
    public init(_ value: Int64) {
        literal = String(value)
    }

    /// The integer, in decimal.
    public init(_ value: Int) {
        literal = String(value)
    }

    /// The shortest text that reads back as the same `Double`; nil for NaN and infinities,
    /// which JSON cannot express.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        literal = DoubleText.literal(value)
    }

    /// The number `literal` spells; nil unless it is exactly one JSON number (no whitespace,
    /// no leading `+`, no leading zeros, no hex, no NaN or Infinity).
    public init?(literal: String) {
        var text = literal
        let valid = text.withUTF8 { NumberGrammar.isValid(UnsafeRawBufferPointer($0)) }
        guard valid else { return nil }
        self.literal = text
    }

    /// For the parser, which has already checked the grammar.
    init(validatedLiteral: String) {
        literal = validatedLiteral
    }

    /// The exact value when it is an integer within `Int64`, however it is spelled:
    /// "40", "40.0", "4e1" and "400e-1" give 40, "-0" gives 0; "40.5", "1e400" and
    /// "9223372036854775808" give nil.
    public var int64: Int64? {
        integral.int64
    }

    /// The nearest `Double`; nil when the value overflows to infinity. Tiny values underflow
    /// to zero, as `strtod` does.
    public var double: Double? {
        guard let value = Double(literal), value.isFinite else { return nil }
        return value
    }

    /// True when the value is integral, whatever its size ("1e400" is; "0.5" is not).
    public var isInteger: Bool {
        integral.isInteger
    }

    /// The literal.
    public var description: String {
        literal
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
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
