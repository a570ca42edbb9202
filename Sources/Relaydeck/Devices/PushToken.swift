/// A push token as hexadecimal text (`rest-api.md#device`: "The APNs device token, as
/// hexadecimal text"): an APNs device token, an ActivityKit push-to-start or update token, a
/// WidgetKit token. APNs gives 32 bytes today and has said the length may grow, so the
/// bound is generous; anything that is not hexadecimal can never reach APNs and is refused.
/// Stored lowercase, so one token sent in two cases is one token (the rule that one APNs
/// token belongs to one registration compares them).
public struct PushToken: Sendable, Equatable, CustomStringConvertible {
    public let value: String

    /// Hexadecimal digits, an even number of them: whole bytes.
    public static let digits = 16...512
    public static let problem = "Must be hexadecimal text of \(digits.lowerBound) to \(digits.upperBound) digits, whole bytes."

    /// The token in lowercase, or nil when `text` is not whole bytes of hexadecimal text of
    /// the allowed length.
    public init?(_ text: String) {
        let utf8 = text.utf8
        guard Self.digits.contains(utf8.count), utf8.count % 2 == 0 else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(utf8.count)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): lowered.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): lowered.append(byte + 0x20)
            default: return nil
            }
        }
        value = String(decoding: lowered, as: UTF8.self)
    }

    /// Not logged anywhere, but kept short where a description is asked for.
    public var description: String { "PushToken(\(value.utf8.count / 2) bytes)" }
}
