import Crypto

/// Where identifiers and secrets get their randomness. The server uses the kernel's CSPRNG;
/// tests may inject a fixed sequence.
public protocol RandomSource: AnyObject {
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

/// The kernel's random bytes (`getrandom`). Small draws (an ID's 10 bytes, a secret's 32)
/// come from a pool of `poolSize` bytes filled in one call, instead of a system call each:
/// an ID was one `getrandom` per request, a task write made two. Bytes handed out are
/// zeroed in the pool, so it never holds a secret already issued. One thread at a time
/// (the server's loop, or one operator command).
public final class SystemRandom: RandomSource {
    static let poolSize = 512
    /// Draws larger than this go to the kernel directly.
    static let pooledDrawLimit = 64

    private let pool = UnsafeMutableRawBufferPointer.allocate(byteCount: SystemRandom.poolSize, alignment: 8)
    /// Where the unused bytes of the pool begin; `poolSize` when it is empty.
    private var next = SystemRandom.poolSize

    public init() {}

    deinit {
        pool.initializeMemory(as: UInt8.self, repeating: 0)
        pool.deallocate()
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let count = buffer.count
        guard count <= Self.pooledDrawLimit else {
            SecureRandom.fill(buffer)
            return
        }
        if Self.poolSize - next < count {
            SecureRandom.fill(pool)
            next = 0
        }
        let drawn = UnsafeMutableRawBufferPointer(rebasing: pool[next..<(next + count)])
        buffer.copyMemory(from: UnsafeRawBufferPointer(drawn))
        drawn.initializeMemory(as: UInt8.self, repeating: 0)
        next += count
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
