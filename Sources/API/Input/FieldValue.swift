/// A field that may be left out, sent as `null`, or sent with a value: three different
/// requests for a `PATCH` (`rest-api.md#update-a-task`: a field that is not in the body does
/// not change; `progress: null` clears it).
enum FieldValue<Value> {
    case absent
    case null
    case value(Value)

    /// The value, if one was sent.
    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }
}

extension FieldValue {
    /// As the domain's patches take it: nil when absent, `.some(nil)` for `null`.
    var patch: Value?? {
        switch self {
        case .absent: nil
        case .null: .some(nil)
        case .value(let value): .some(value)
        }
    }
}
