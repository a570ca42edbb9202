#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import HTTPClient
import Testing
import TestSupport
import TLS

/// A loop, a TLS server of the test's own on it (`ScriptedServer`, a certificate for
/// `names` made with `openssl`) and a client that trusts that certificate.
final class FetchHarness {
    let directory = TemporaryDirectory()
    let loop: EventLoop
    let server: ScriptedServer
    let client: HTTPClient

    init(names: [String] = ["DNS:localhost", "IP:127.0.0.1"], tls: Bool = true, allowsPlainHTTP: Bool = false,
         admits: @escaping (IPAddress) -> Bool = { _ in true },
         script: @escaping (_ request: String) -> [ScriptedServer.Step]) throws {
        // A written socket whose peer is gone must give EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)
        loop = try EventLoop()
        let certificate = try Self.certificate(in: directory, names: names)
        let serverContext = tls ? try TLSServerContext(certificateChainFile: certificate.file, privateKeyFile: certificate.key) : nil
        server = try ScriptedServer(loop: loop, tls: serverContext, script: script)
        client = HTTPClient(loop: loop, tls: try TLSClientContext(extraCAFile: certificate.file),
                            allowsPlainHTTP: allowsPlainHTTP, admits: admits)
    }

    deinit {
        server.stop()
    }

    /// `https://localhost:<port>` followed by `path`.
    func url(_ path: String, scheme: String = "https", host: String = "localhost") throws -> HTTPURL {
        try HTTPURL("\(scheme)://\(host):\(server.port)\(path)")
    }

    /// Sends `request` and runs the loop until its result, 20 s at most.
    func fetch(_ request: HTTPClientRequest, limits: HTTPClientLimits = HTTPClientLimits(timeout: .seconds(10)))
        -> Result<HTTPClientResponse, HTTPClientFailure>? {
        var result: Result<HTTPClientResponse, HTTPClientFailure>?
        client.fetch(request, limits: limits) { result = $0 }
        run { result != nil }
        return result
    }

    func fetch(_ path: String, limits: HTTPClientLimits = HTTPClientLimits(timeout: .seconds(10)))
        throws -> Result<HTTPClientResponse, HTTPClientFailure>? {
        fetch(HTTPClientRequest(url: try url(path)), limits: limits)
    }

    /// The loop's turns until `done` holds, 20 s at most (a guard against a hang, not a
    /// measure of anything).
    func run(until done: () -> Bool) {
        loop.run(until: done, within: .seconds(20))
    }

    /// A self-signed P-256 certificate whose subjectAltName holds `names`.
    static func certificate(in directory: TemporaryDirectory, names: [String]) throws -> (file: String, key: String) {
        let file = directory.file("server.pem")
        let key = directory.file("server-key.pem")
        let status = try ChildProcess.run([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", file, "-days", "2", "-subj", "/CN=test server",
            "-addext", "subjectAltName=" + names.joined(separator: ","),
        ], output: directory.file("openssl.log"))
        try #require(status == 0)
        return (file, key)
    }
}

extension Result where Success == HTTPClientResponse, Failure == HTTPClientFailure {
    var response: HTTPClientResponse? {
        if case .success(let response) = self { response } else { nil }
    }

    var failure: HTTPClientFailure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}

/// An answer head with a Content-Length for `body`, and the body.
func answer(_ status: String, _ headers: [String] = [], body: String = "") -> String {
    "HTTP/1.1 \(status)\r\n" + (headers + ["Content-Length: \(body.utf8.count)"]).map { $0 + "\r\n" }.joined() + "\r\n" + body
}
