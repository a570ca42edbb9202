import Crypto

/// Where identifiers and secrets get their randomness. The server uses the kernel's CSPRNG;
/// tests may inject a fixed sequence.
public protocol RandomSource: AnyObject {
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

public final class SystemRandom: RandomSource {
    public init() {}

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        SecureRandom.fill(buffer)
    }
}

extension RandomSource {
    func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// `count` characters of [0-9A-Za-z], uniform: bytes of 248 and above are dropped so
    /// that `byte % 62` has no bias.
    func alphanumeric(_ count: Int) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            for byte in bytes(count + 8) where byte < 248 && out.count < count {
                out.append(alphabet[Int(byte % 62)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
