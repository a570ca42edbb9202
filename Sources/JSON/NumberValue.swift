/// Exact integer questions about a validated number literal, answered from its digits, never
/// through `Double`: "9007199254740993" must not become ...992, and "1e400" must not trap.
enum NumberValue {
    struct Integral {
        /// The value has no fractional part (whatever its size).
        var isInteger: Bool
        /// The value when it is an integer that fits `Int64`.
        var int64: Int64?
    }

    /// Far beyond any exponent that matters (Int64 needs 19 digits, Double 309), yet small
    /// enough that adding a digit count to it can never overflow.
    private static let exponentCap = 1 << 40

    /// `literal` must already match the JSON number grammar.
    static func integral(_ literal: UnsafeRawBufferPointer) -> Integral {
        let n = literal.count
        var j = 0
        let negative = n > 0 && literal[0] == UInt8(ascii: "-")
        if negative { j = 1 }
        let intStart = j
        while j < n, NumberGrammar.isDigit(literal[j]) { j += 1 }
        let intLength = j - intStart
        var fracStart = j
        if j < n, literal[j] == UInt8(ascii: ".") {
            j += 1
            fracStart = j
            while j < n, NumberGrammar.isDigit(literal[j]) { j += 1 }
        }
        let fracLength = j - fracStart
        var exponent = 0
        if j < n, literal[j] | 0x20 == UInt8(ascii: "e") {
            j += 1
            var exponentNegative = false
            if j < n, literal[j] == UInt8(ascii: "-") || literal[j] == UInt8(ascii: "+") {
                exponentNegative = literal[j] == UInt8(ascii: "-")
                j += 1
            }
            while j < n {
                if exponent < exponentCap {
                    exponent = exponent * 10 + Int(literal[j] &- UInt8(ascii: "0"))
                }
                j += 1
            }
            if exponentNegative { exponent = -exponent }
        }

        // The digits of integer and fraction part read as one string D, with the decimal point
        // `point` digits from its start (the exponent moves the point).
        let length = intLength + fracLength
        func digit(_ k: Int) -> UInt8 {
            let byte = k < intLength ? literal[intStart + k] : literal[fracStart + k - intLength]
            return byte &- UInt8(ascii: "0")
        }
        var first = 0
        while first < length, digit(first) == 0 { first += 1 }
        if first == length {
            return Integral(isInteger: true, int64: 0)   // every zero, "-0" and "0e99" included
        }
        var last = length - 1
        while digit(last) == 0 { last -= 1 }
        let point = intLength + exponent
        guard last < point else {
            return Integral(isInteger: false, int64: nil)
        }
        // 19 digits always fit UInt64; Int64 itself never needs more.
        guard point - first <= 19 else {
            return Integral(isInteger: true, int64: nil)
        }
        var magnitude: UInt64 = 0
        for k in first..<point {
            magnitude = magnitude * 10 + UInt64(k < length ? digit(k) : 0)
        }
        return Integral(isInteger: true, int64: signed(magnitude, negative: negative))
    }

    private static func signed(_ magnitude: UInt64, negative: Bool) -> Int64? {
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}
