// Literal conformances, so tests and fixed response bodies can be written as Swift literals:
// `let body: JSON = ["ok": true, "items": [1, 2.5, "three", nil]]`.

extension JSON: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSON: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSON: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self = .number(JSONNumber(value))
    }
}

extension JSON: ExpressibleByFloatLiteral {
    /// A float literal the compiler accepts is always finite; `null` covers the impossible rest
    /// rather than trapping.
    public init(floatLiteral value: Double) {
        if let number = JSONNumber(value) {
            self = .number(number)
        } else {
            self = .null
        }
    }
}

extension JSON: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSON: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSON...) {
        self = .array(elements)
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// Members keep the literal's order; a repeated key is kept twice, as the parser would.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        var members: [(key: String, value: JSON)] = []
        members.reserveCapacity(elements.count)
        for (key, value) in elements {
            members.append((key: key, value: value))
        }
        self = .object(JSONObject(members))
    }
}
