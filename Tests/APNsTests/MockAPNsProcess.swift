#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import JSON

/// Tests/e2e/apns_mock.py run as a program by the package's .venv python: its URL, CA
/// file and provider key once it listens, and the events it wrote (connections, requests,
/// PINGs, GOAWAYs). Stopped with SIGTERM when released.
final class MockAPNsProcess {
    let directory = TemporaryDirectory()
    let process: ChildProcess
    let url: String
    let caFile: String
    let privateKeyPEM: [UInt8]

    static let python = packageRoot + "/.venv/bin/python"
    /// Why these tests cannot run here, or nil.
    static var unavailable: String? {
        fileExists(python) ? nil : "\(python) is missing: run `make deps` to run the APNs client against the mock"
    }

    init(_ arguments: [String] = []) throws {
        let ready = directory.file("ready.json")
        process = try ChildProcess(
            [Self.python, packageRoot + "/Tests/e2e/apns_mock.py", "--ready-file", ready, "--events-file", directory.file("events.jsonl")]
                + arguments,
            stdout: directory.file("mock.out"), stderr: directory.file("mock.err"))
        var info: JSON?
        for _ in 0..<400 where info == nil {
            if fileExists(ready) { info = try? JSONParser.parse(readFile(ready)) }
            if info == nil {
                if process.hasExited { break }
                usleep(25_000)
            }
        }
        guard let info, let url = info["url"]?.stringValue, let caFile = info["ca_file"]?.stringValue,
              let keyFile = info["private_key_file"]?.stringValue else {
            throw ChildProcessError(message: "the mock did not start: \(String(decoding: readFile(directory.file("mock.err")), as: UTF8.self))")
        }
        self.url = url
        self.caFile = caFile
        privateKeyPEM = readFile(keyFile)
    }

    deinit {
        process.terminate()
        process.wait()
    }

    /// Every event so far, in order.
    var events: [JSON] {
        String(decoding: readFile(directory.file("events.jsonl")), as: UTF8.self)
            .split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
    }

    func events(_ kind: String) -> [JSON] {
        events.filter { $0["event"]?.stringValue == kind }
    }

    var requests: [JSON] { events("request") }
}
