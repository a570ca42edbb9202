/// HKDF with HMAC-SHA-256 (RFC 5869), as Web Push's message encryption derives its keys
/// (RFC 8291, RFC 8188).
public enum HKDF {
    /// HKDF-Extract: the pseudorandom key of `secret` under `salt` (32 bytes).
    public static func extract(salt: [UInt8], secret: [UInt8]) -> [UInt8] {
        HMAC.sha256(key: salt, message: secret)
    }

    /// HKDF-Expand: `length` bytes (at most 255 × 32) of `key` for `info`.
    public static func expand(key: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= 255 * 32, "HKDF-Expand gives at most 8,160 bytes")
        var out: [UInt8] = []
        out.reserveCapacity(length)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while out.count < length {
            block = HMAC.sha256(key: key, message: block + info + [counter])
            out += block.prefix(length - out.count)
            counter &+= 1
        }
        return out
    }

    /// Extract, then expand.
    public static func derive(salt: [UInt8], secret: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        expand(key: extract(salt: salt, secret: secret), info: info, length: length)
    }
}
