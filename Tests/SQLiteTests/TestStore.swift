import Clock
import Glibc
import SQLite
import Testing

/// The two stores every store test runs on.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case file
    case memory

    var testDescription: String { rawValue }
}

/// A fresh store for one test: a database file in its own mkdtemp directory under /tmp, or
/// ":memory:". The directory and everything in it are removed in deinit.
final class TestStore {
    let kind: StoreKind
    let directory: String
    let path: String

    init(_ kind: StoreKind) {
        self.kind = kind
        directory = makeTemporaryDirectory()
        path = kind == .file ? directory + "/relaydeck.db" : ":memory:"
    }

    deinit {
        removeDirectory(directory)
    }

    func open(_ options: Database.Options = Database.Options()) throws(SQLiteError) -> Database {
        try Database(path: path, options: options)
    }

    var walPath: String { path + "-wal" }
}

func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/relaydeck-sqlite-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let result = mkdtemp(buffer.baseAddress!) else { fatalError("mkdtemp failed: \(errno)") }
        return String(cString: result)
    }
}

/// Removes the files in `path` (the tests create no subdirectories) and `path` itself.
func removeDirectory(_ path: String) {
    guard let stream = opendir(path) else { return }
    var names: [String] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    closedir(stream)
    for name in names { unlink(path + "/" + name) }
    rmdir(path)
}

func fileSize(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_size)
}

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    defer { close(fd) }
    bytes.withUnsafeBytes { raw in
        precondition(write(fd, raw.baseAddress, raw.count) == raw.count)
    }
}

func monotonicMillis() -> Int {
    Int(SystemClock.shared.now.nanoseconds / 1_000_000)
}

extension Database {
    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String) throws -> SQLiteValue? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.value(0)
    }

    func count(_ table: String) throws -> Int64 {
        guard case .integer(let count) = try scalar("SELECT count(*) FROM \(table)") else { return -1 }
        return count
    }

    func tableExists(_ name: String) throws -> Bool {
        let statement = try prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
        try statement.bind(name, at: 1)
        return try statement.step()
    }
}
