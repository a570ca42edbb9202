#if canImport(Glibc)
import Glibc
#endif

/// Why `Config.readFileFromDisk` could not read a file. The message names the path, never
/// the contents.
struct FileReadError: Error, Equatable, CustomStringConvertible {
    enum Reason: Equatable {
        /// `open` or `read` failed with this errno.
        case system(Int32)
        /// The file holds more than `Config.maxFileSize` bytes.
        case tooLarge
    }

    let path: String
    let reason: Reason

    /// The file is not there (ENOENT); for `$CREDENTIALS_DIRECTORY/NAME` that means "not set".
    var isNotFound: Bool { reason == .system(ENOENT) }

    var description: String {
        switch reason {
        case .system(let code):
            "cannot read \(ConfigError.quoted(path)): \(String(cString: strerror(code)))"
        case .tooLarge:
            "\(ConfigError.quoted(path)) is larger than 1 MiB"
        }
    }
}

extension Config {
    /// Settings files are PEM keys, certificates and short secrets; nothing near this size.
    static let maxFileSize = 1 << 20

    /// The whole file at `path`, read with `open`/`read`. Throws `FileReadError`, also for a
    /// file over 1 MiB (so a wrong path such as a device or a log cannot eat memory). Pipes
    /// such as `/dev/fd/N` from process substitution work: the size is counted as read.
    static func readFileFromDisk(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(path: path, reason: .system(errno)) }
        defer { close(fd) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, reason: .system(errno))
            }
            if n == 0 { return contents }
            guard contents.count + n <= maxFileSize else { throw FileReadError(path: path, reason: .tooLarge) }
            contents.append(contentsOf: chunk[..<n])
        }
    }
}
