#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import relaydeckd

@Suite struct ReadFileFromDiskTests {
    /// A new file in a fresh temporary directory holding `bytes`; removed by `cleanUp`.
    private func temporaryFile(_ bytes: [UInt8]) throws -> String {
        var template = Array("/tmp/relaydeck-config-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(fd >= 0)
        defer { close(fd) }
        let path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            try #require(n > 0)
            offset += n
        }
        return path
    }

    @Test func readsAWholeFile() throws {
        let bytes = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let path = try temporaryFile(bytes)
        defer { unlink(path) }
        #expect(try Config.readFileFromDisk(path) == bytes)
    }

    @Test func readsAnEmptyFile() throws {
        let path = try temporaryFile([])
        defer { unlink(path) }
        #expect(try Config.readFileFromDisk(path) == [])
    }

    @Test func readsExactlyOneMebibyte() throws {
        let path = try temporaryFile([UInt8](repeating: 0x41, count: 1 << 20))
        defer { unlink(path) }
        #expect(try Config.readFileFromDisk(path).count == 1 << 20)
    }

    @Test func refusesAFileOverOneMebibyte() throws {
        let path = try temporaryFile([UInt8](repeating: 0x41, count: (1 << 20) + 1))
        defer { unlink(path) }
        #expect(throws: FileReadError(path: path, reason: .tooLarge)) { try Config.readFileFromDisk(path) }
        #expect(FileReadError(path: path, reason: .tooLarge).description == "\"\(path)\" is larger than 1 MiB")
    }

    @Test func reportsAMissingFileAsNotFound() throws {
        let path = "/nonexistent/relaydeck/secret"
        let error = try #require(#expect(throws: FileReadError.self) { try Config.readFileFromDisk(path) })
        #expect(error.isNotFound)
        #expect(error.description == "cannot read \"/nonexistent/relaydeck/secret\": No such file or directory")
    }

    @Test func reportsADirectory() throws {
        let error = try #require(#expect(throws: FileReadError.self) { try Config.readFileFromDisk("/tmp") })
        #expect(error.reason == .system(EISDIR))
        #expect(!error.isNotFound)
    }

    @Test func loadsASecretFromARealFile() throws {
        let path = try temporaryFile(Array("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====\n".utf8))
        defer { unlink(path) }
        let config = try Config.load(environment: ["APP_TOTP_SECRET_FILE": path])
        #expect(config.appTOTPSecret == Array("12345678901234567890123456789012".utf8))
    }
}

/// One at a time: `setenv` may move the process's `environ` array while the other test walks
/// it (seen as a crash in `strlen` when both ran at once).
@Suite(.serialized) struct ProcessEnvironmentTests {
    @Test func readsVariablesSplitAtTheFirstEqualsSign() {
        setenv("RELAYDECK_CONFIG_TEST", "a=b=c", 1)
        defer { unsetenv("RELAYDECK_CONFIG_TEST") }
        let environment = ProcessEnvironment.current()
        #expect(environment["RELAYDECK_CONFIG_TEST"] == "a=b=c")
        #expect(environment["PATH"] == String(cString: getenv("PATH")))
    }

    @Test func keepsEmptyValues() {
        setenv("RELAYDECK_CONFIG_EMPTY", "", 1)
        defer { unsetenv("RELAYDECK_CONFIG_EMPTY") }
        #expect(ProcessEnvironment.current()["RELAYDECK_CONFIG_EMPTY"] == "")
    }
}
