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
    let program: MockProgram
    let url: String
    let caFile: String
    let privateKeyPEM: [UInt8]

    /// Why these tests cannot run here, or nil.
    static var unavailable: String? { MockProgram.unavailable }

    init(_ arguments: [String] = []) throws {
        program = try MockProgram("apns_mock.py", arguments)
        let info = try JSONParser.parse(program.ready)
        guard let url = info["url"]?.stringValue, let caFile = info["ca_file"]?.stringValue,
              let keyFile = info["private_key_file"]?.stringValue else {
            throw ChildProcessError(message: "the mock's ready file lacks url, ca_file or private_key_file")
        }
        self.url = url
        self.caFile = caFile
        privateKeyPEM = readFile(keyFile)
    }

    /// Every event so far, in order.
    var events: [JSON] {
        program.eventLines.compactMap { try? JSONParser.parse(Array($0.utf8)) }
    }

    func events(_ kind: String) -> [JSON] {
        events.filter { $0["event"]?.stringValue == kind }
    }

    var requests: [JSON] { events("request") }
}
