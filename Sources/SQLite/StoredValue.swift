/// A column's value exactly as the file holds it: a TEXT is its bytes, not repaired into a
/// `String` (`Statement.string` replaces invalid UTF-8 with U+FFFD), so a copy of the file
/// can check what it copies rather than what a decoder made of it.
public enum StoredValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text([UInt8])
    case blob([UInt8])
}
