#if canImport(Glibc)
import Glibc
#endif

/// Byte classes and small scanning helpers shared by the request parser and the response
/// writer. Everything works on raw bytes: no String is built while parsing.
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let comma: UInt8 = 0x2C
    static let semicolon: UInt8 = 0x3B
    static let slash: UInt8 = 0x2F
    static let question: UInt8 = 0x3F
    static let asterisk: UInt8 = 0x2A
    static let dot: UInt8 = 0x2E

    // tchar (RFC 9110 5.6.2) as two 64-bit masks: a branch-free test without a global
    // table, whose lazy initialisation would cost a check on every byte.
    private static let tcharLow: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tcharHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    @inline(__always)
    static func isTchar(_ b: UInt8) -> Bool {
        if b < 64 { return (tcharLow >> UInt64(b)) & 1 == 1 }
        if b < 128 { return (tcharHigh >> UInt64(b &- 64)) & 1 == 1 }
        return false
    }

    /// VCHAR, SP, HTAB or obs-text: what a field value may hold (RFC 9110 5.5).
    @inline(__always)
    static func isFieldValueByte(_ b: UInt8) -> Bool {
        (b >= 0x20 && b != 0x7F) || b == htab
    }

    /// Whether every byte of `p[from..<to]` may appear in a field value. Values are most of a
    /// head's bytes, so eight are tested at once (SWAR: any byte below 0x20 or equal to
    /// 0x7F); only a word that holds such a byte, HTAB being one, is looked at byte by byte.
    static func areFieldValueBytes(_ p: UnsafeRawBufferPointer, from: Int, to: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var k = from
        while to - k >= 8 {
            let x = p.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            let below20 = (x &- ones &* 0x20) & ~x & highs
            let y = x ^ (ones &* 0x7F)
            let equal7F = (y &- ones) & ~y & highs
            if below20 | equal7F != 0 {
                for i in k..<(k + 8) where !isFieldValueByte(p[i]) { return false }
            }
            k += 8
        }
        while k < to {
            if !isFieldValueByte(p[k]) { return false }
            k += 1
        }
        return true
    }

    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == sp || b == htab }

    @inline(__always)
    static func lowercased(_ b: UInt8) -> UInt8 {
        b >= 0x41 && b <= 0x5A ? b | 0x20 : b
    }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: Int(b &- 0x30)
        case 0x41...0x46: Int(b &- 0x41 &+ 10)
        case 0x61...0x66: Int(b &- 0x61 &+ 10)
        default: nil
        }
    }

    /// Index of the first LF in `p[from..<to]`; memchr is vectorised, a Swift byte loop not.
    @inline(__always)
    static func firstLF(_ p: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard from < to, let base = p.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(lf), to - from) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// Compares `p[range]` with a lowercase ASCII name, ignoring the case of `p`.
    @inline(__always)
    static func equalsLowercase(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ name: StaticString) -> Bool {
        guard end - start == name.utf8CodeUnitCount else { return false }
        let n = name.utf8Start
        var i = 0
        while i < end - start {
            if lowercased(p[start + i]) != n[i] { return false }
            i += 1
        }
        return true
    }

    /// Compares two byte runs ignoring ASCII case.
    @inline(__always)
    static func equalsIgnoringCase(_ a: UnsafeRawBufferPointer, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var i = 0
        while i < a.count {
            if lowercased(a[i]) != lowercased(b[i]) { return false }
            i += 1
        }
        return true
    }
}

/// The elements of a comma-separated list (RFC 9110 5.6.1) inside `p[start..<end]`, each
/// trimmed of OWS. Empty elements are returned too; callers decide what they mean.
struct ListElements: IteratorProtocol {
    private let p: UnsafeRawBufferPointer
    private var position: Int
    private let end: Int
    private var done = false

    init(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) {
        self.p = p
        self.position = start
        self.end = end
    }

    mutating func next() -> Range<Int>? {
        guard !done else { return nil }
        var stop = position
        while stop < end && p[stop] != ASCII.comma { stop += 1 }
        var lo = position
        var hi = stop
        while lo < hi && ASCII.isWhitespace(p[lo]) { lo += 1 }
        while hi > lo && ASCII.isWhitespace(p[hi - 1]) { hi -= 1 }
        if stop == end { done = true } else { position = stop + 1 }
        return lo..<hi
    }
}
