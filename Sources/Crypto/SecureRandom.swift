import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Bytes from the kernel's CSPRNG (`getrandom(2)`), for tokens, keys and challenges.
public enum SecureRandom {
    /// Fills `buffer` with random bytes. Blocks only before the kernel pool is first seeded
    /// (early boot); retries interrupted and short reads.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard var next = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let n = getrandom(next, remaining, 0)
            if n > 0 {
                next += n
                remaining -= n
            } else if n < 0 && (errno == EINTR || errno == EAGAIN) {
                continue
            } else {
                // ENOSYS (kernel before 3.17) or a seccomp filter: there is no safe fallback,
                // and running on without randomness would hand out guessable tokens.
                fatalError("getrandom failed: errno \(errno)")
            }
        }
    }

    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        let count = max(0, count)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    private static let alphabet: StaticString = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

    /// `count` characters from [0-9A-Za-z], uniform (rejection sampling, no modulo bias).
    ///
    /// Each random byte below 248 (the largest multiple of 62 that fits) picks `byte % 62`;
    /// the rest are thrown away, about 3 % of them.
    public static func alphanumeric(_ count: Int) -> String {
        let count = max(0, count)
        let limit: UInt8 = 248
        return alphabet.withUTF8Buffer { alphabet in
            String(unsafeUninitializedCapacity: count) { out in
                // Enough for most strings in one call, with room for the rejected bytes.
                let poolSize = min(256, count + count / 16 + 8)
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: poolSize) { pool in
                    var written = 0
                    var used = poolSize
                    while written < count {
                        if used == poolSize {
                            fill(UnsafeMutableRawBufferPointer(pool))
                            used = 0
                        }
                        let byte = pool[used]
                        used += 1
                        if byte < limit {
                            out[written] = alphabet[Int(byte % 62)]
                            written += 1
                        }
                    }
                    return count
                }
            }
        }
    }
}
