#if canImport(Glibc)
import Glibc
#endif

/// The package's root, from this file's path (tests run the mocks and read fixtures there).
public let packageRoot: String = {
    var path = #filePath
    for _ in 0..<3 {
        while let last = path.last, last != "/" { path.removeLast() }
        path.removeLast()
    }
    return path
}()

/// The whole file; empty when it cannot be read.
public func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

public func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}
