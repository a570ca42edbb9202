/// The shape of a device ID (`rest-api.md#device`): `dev_` plus a lowercase UUID, which the
/// client makes. Only the layout is checked (8-4-4-4-12 lowercase hexadecimal digits), not
/// a UUID version: the contract asks for "a lowercase UUID", and any version is one.
public enum DeviceID {
    public static let prefix = "dev_"
    public static let problem = "Must be dev_ plus a lowercase UUID."

    /// True for `dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b`; false for uppercase digits, braces,
    /// a missing dash, or anything else.
    public static func isWellFormed(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == prefix.utf8.count + 36, utf8.starts(with: prefix.utf8) else { return false }
        let uuid = utf8.dropFirst(prefix.utf8.count)
        for (offset, byte) in uuid.enumerated() {
            let isDash = [8, 13, 18, 23].contains(offset)
            if isDash {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) else {
                    return false
                }
            }
        }
        return true
    }
}
