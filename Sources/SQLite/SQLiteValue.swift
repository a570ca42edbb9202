/// A value bound to a statement parameter, in SQLite's five storage classes.
///
/// Literals pick the class: `1` is `.integer`, `1.5` is `.real`, `"a"` is `.text`, `nil` is
/// `.null`, and `true`/`false` are the integers 1 and 0 (SQLite has no boolean class).
public enum SQLiteValue: Sendable, Equatable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
{
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
