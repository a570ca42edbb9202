// Numbers are written digit by digit into the buffer: no `String` in between for integers and
// timestamps, which are most of what the server writes.

extension JSONWriter {
    public mutating func int(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude)
        markValueWritten()
    }

    public mutating func int(_ value: Int) {
        int(Int64(value))
    }

    /// The shortest text that reads back as the same `Double` (see `JSONNumber(_: Double)`);
    /// NaN and infinities, which JSON cannot express, are written as `null`.
    public mutating func double(_ value: Double) {
        guard value.isFinite else {
            null()
            return
        }
        separate()
        var text = DoubleText.literal(value)
        text.withUTF8 { bytes.append(contentsOf: $0) }
        markValueWritten()
    }

    /// The number's literal, exactly as it was parsed or built.
    public mutating func number(_ value: JSONNumber) {
        if let integer = value.storedInteger {
            int(integer)
            return
        }
        separate()
        var text = value.literal
        text.withUTF8 { bytes.append(contentsOf: $0) }
        markValueWritten()
    }

    /// A contract timestamp: Unix seconds with a fraction, from integer milliseconds.
    /// The fraction keeps at least one digit and drops trailing zeros: 1760000000000 ->
    /// `1760000000.0`, 1760112300900 -> `1760112300.9`, 1760112000412 -> `1760112000.412`,
    /// -1500 -> `-1.5`. Integer arithmetic only, so no value is ever rounded.
    /// (overview.md: "A timestamp is Unix seconds as a number with a fraction".)
    /// A timestamp, or `null`.
    public mutating func timestamp(millis: Int64?) {
        if let millis { timestamp(millis: millis) } else { null() }
    }

    public mutating func timestamp(millis: Int64) {
        separate()
        if millis < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = millis.magnitude
        appendDecimal(magnitude / 1000)
        bytes.append(UInt8(ascii: "."))
        var fraction = magnitude % 1000
        if fraction == 0 {
            bytes.append(UInt8(ascii: "0"))
        } else {
            var digits = 3
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            // Leading zeros of the fraction: 50 ms is ".05".
            let leadingZeros = digits - Self.decimalDigitCount(fraction)
            for _ in 0..<leadingZeros {
                bytes.append(UInt8(ascii: "0"))
            }
            appendDecimal(fraction)
        }
        markValueWritten()
    }

    /// Appends `value` in decimal: grows the buffer once, then fills the digits from the right.
    private mutating func appendDecimal(_ value: UInt64) {
        let count = Self.decimalDigitCount(value)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var rest = value
            var position = start + count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
        }
    }

    private static func decimalDigitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }
}
