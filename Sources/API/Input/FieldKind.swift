import JSON
import Relaydeck

/// How one value is read: from JSON in a body (or an MCP argument), or from the text of a
/// query parameter. A failure is the message for the field, without its name.
struct FieldKind<Value> {
    let read: (_ value: JSON, _ fromQuery: Bool) -> Result<Value, FieldMessage>
}

/// The text of one field problem; the reader adds the field's path.
struct FieldMessage: Error {
    let text: String

    init(_ text: String) { self.text = text }
}

extension FieldKind where Value == String {
    static var string: FieldKind {
        FieldKind { value, _ in
            guard case .string(let text) = value else { return .failure(FieldMessage("Must be a string.")) }
            return .success(text)
        }
    }
}

extension FieldKind where Value == CheckedText {
    /// A string that passes `rule` (`overview.md#limits`), normalized.
    static func text(_ rule: TextRule) -> FieldKind {
        FieldKind { value, _ in
            guard case .string(let raw) = value else { return .failure(FieldMessage("Must be a string.")) }
            return rule.check(raw).mapError { FieldMessage($0.message) }
        }
    }
}

extension FieldKind where Value == Bool {
    static var bool: FieldKind {
        FieldKind { value, fromQuery in
            switch value {
            case .bool(let flag): return .success(flag)
            case .string("true") where fromQuery: return .success(true)
            case .string("false") where fromQuery: return .success(false)
            default: return .failure(FieldMessage("Must be true or false."))
            }
        }
    }
}

extension FieldKind where Value == Int {
    /// An integer in `range`: a JSON number of integral value (`50`, `50.0` and `5e1` alike,
    /// as JSON Schema's `integer`), or decimal digits in a query.
    static func int(_ range: ClosedRange<Int>) -> FieldKind {
        FieldKind { value, fromQuery in
            let number: Int64? = switch value {
            case .number(let number) where number.isInteger: number.int64
            case .string(let text) where fromQuery: FieldKind.decimal(text)
            default: nil
            }
            guard let number, number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
                return .failure(FieldMessage("Must be an integer from \(TextRules.grouped(range.lowerBound)) to \(TextRules.grouped(range.upperBound))."))
            }
            return .success(Int(number))
        }
    }

    /// `-?[0-9]{1,18}` as a number; anything else (signs, spaces, huge values) nil.
    private static func decimal(_ text: String) -> Int64? {
        var digits = Substring(text).utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard (1...18).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let magnitude = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        return negative ? -magnitude : magnitude
    }
}

extension FieldKind where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enum's raw values, exactly.
    static var choice: FieldKind {
        FieldKind { value, _ in
            if case .string(let text) = value, let choice = Value(rawValue: text) {
                return .success(choice)
            }
            let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(FieldMessage("Must be one of: \(names)."))
        }
    }
}
