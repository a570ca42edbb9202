#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp, removed with everything in it when released.
public final class TemporaryDirectory {
    public let path: String

    public init() {
        var template = Array("/tmp/relaydeck-tests-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { buffer -> String in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else {
                fatalError("mkdtemp failed: errno \(errno)")
            }
            return String(cString: base)
        }
    }

    deinit {
        Self.removeTree(path)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Creates `path/name` as a directory and returns its path.
    @discardableResult
    public func makeDirectory(_ name: String) -> String {
        let made = file(name)
        mkdir(made, 0o700)
        return made
    }

    /// The size of the file at `path`, or nil when there is none.
    public static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    public static func write(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot create \(path)")
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    public static func removeTree(_ path: String) {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                    pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                removeTree(path + "/" + name)
            }
            closedir(directory)
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
