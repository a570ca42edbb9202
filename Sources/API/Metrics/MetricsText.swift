/// The Prometheus text exposition format (version 0.0.4), written into bytes: a family's
/// `# HELP` and `# TYPE` lines, then its samples. Label values and help texts are escaped as
/// the format asks (`\\`, `\"` and `\n` in a label value; `\\` and `\n` in a help text), so
/// no value can end its quotes or its line early.
struct MetricsText {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    enum Kind: String {
        case counter, gauge, histogram
    }

    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 8192) {
        bytes.reserveCapacity(capacity)
    }

    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        append("# HELP \(name) ")
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\n# TYPE \(name) \(kind.rawValue)\n")
    }

    mutating func sample(_ name: String, _ value: Int) {
        sample(name, [], value)
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        head(name, labels)
        append(String(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], seconds micros: Int) {
        head(name, labels)
        append(Self.secondsText(micros))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A histogram's samples from its per-bucket counts (`counts` has one more entry than
    /// `bounds`: what fell above the last bound): the buckets cumulative, `+Inf` equal to
    /// `_count`, then `_sum` and `_count`.
    mutating func histogram(_ name: String, _ labels: [(String, String)], bounds micros: [Int], counts: ArraySlice<Int>,
                            sumMicros: Int) {
        var total = 0
        for (bound, count) in zip(micros, counts) {
            total += count
            sample(name + "_bucket", labels + [("le", Self.secondsText(bound))], total)
        }
        total += counts.last ?? 0
        sample(name + "_bucket", labels + [("le", "+Inf")], total)
        sample(name + "_sum", labels, seconds: sumMicros)
        sample(name + "_count", labels, total)
    }

    private mutating func head(_ name: String, _ labels: [(String, String)]) {
        append(name)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            for (index, (label, value)) in labels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(label)
                append("=\"")
                for byte in value.utf8 {
                    switch byte {
                    case UInt8(ascii: "\\"): append("\\\\")
                    case UInt8(ascii: "\""): append("\\\"")
                    case UInt8(ascii: "\n"): append("\\n")
                    default: bytes.append(byte)
                    }
                }
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Microseconds as decimal seconds without an exponent: `0.0025`, `1`, `12.5`.
    static func secondsText(_ micros: Int) -> String {
        let whole = micros / 1_000_000
        var fraction = micros % 1_000_000
        guard fraction != 0 else { return String(whole) }
        var digits = 6
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let text = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }
}
