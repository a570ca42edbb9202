#if canImport(Glibc)
import Glibc
#endif

/// A mock server of `Tests/e2e` (the APNs mock, the Web Push mock) run as a program by the
/// package's .venv python, in a directory of its own: started with `--ready-file` and
/// `--events-file` and the given arguments, waited for until it has written its ready file
/// (10 s at most), stopped with SIGTERM when released.
public final class MockProgram {
    public static let python = packageRoot + "/.venv/bin/python"
    /// Why the mocks cannot run here, or nil.
    public static var unavailable: String? {
        fileExists(python) ? nil : "\(python) is missing: run `make test-deps` to run the tests against the mocks"
    }

    public let directory = TemporaryDirectory()
    public let process: ChildProcess
    /// What the mock wrote to its ready file (a JSON object).
    public let ready: [UInt8]

    /// `script`: the mock's file under `Tests/e2e`.
    public init(_ script: String, _ arguments: [String] = []) throws(ChildProcessError) {
        let readyFile = directory.file("ready.json")
        process = try ChildProcess(
            [Self.python, packageRoot + "/Tests/e2e/" + script, "--ready-file", readyFile, "--events-file", directory.file("events.jsonl")]
                + arguments,
            stdout: directory.file("mock.out"), stderr: directory.file("mock.err"))
        var written: [UInt8] = []
        for _ in 0..<400 where written.isEmpty {
            // The mock writes the file beside and renames it: once there, it is whole.
            if fileExists(readyFile) { written = readFile(readyFile) }
            if written.isEmpty {
                if process.hasExited { break }
                usleep(25_000)
            }
        }
        guard !written.isEmpty else {
            process.terminate()
            _ = process.wait()
            throw ChildProcessError(message: "\(script) did not start: \(String(decoding: readFile(directory.file("mock.err")), as: UTF8.self))")
        }
        ready = written
    }

    deinit {
        process.terminate()
        _ = process.wait()
    }

    /// The lines of the events file so far, in order.
    public var eventLines: [Substring] {
        String(decoding: readFile(directory.file("events.jsonl")), as: UTF8.self).split(separator: "\n")
    }
}
