import EventLoop
import HTTPClient
import Testing
import TestSupport

/// The client against a TLS server of the test's own over loopback (`ScriptedServer`), on one
/// loop: the name `localhost` looked up, the certificate checked against it, the request
/// written, the answer read in the framings and cuts the server chooses.
@Suite struct HTTPFetchTests {
    @Test func a200WithContentLengthIsReadWithItsHeadersAndBodyAfterTheRequestAsSent() throws {
        let harness = try FetchHarness { _ in
            [.send(answer("200 OK", ["Content-Type: application/json", "Cache-Control: max-age=60"], body: #"{"client_name":"x"}"#))]
        }
        let request = HTTPClientRequest(url: try harness.url("/client.json?v=1"), headers: ["Accept": "application/json"])
        let response = try #require(harness.fetch(request)?.response)
        #expect(response.status == 200 && response.reason == "OK" && response.version == "HTTP/1.1")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["CACHE-CONTROL"] == "max-age=60")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"client_name":"x"}"#)
        #expect(response.url == request.url)
        #expect(harness.server.requests == [
            "GET /client.json?v=1 HTTP/1.1\r\nHost: localhost:\(harness.server.port)\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        ])
    }

    @Test func aChunkedBodyOfManySmallChunksWithOneSplitAcrossReadsIsJoined() throws {
        let small = (0..<300).map { "1\r\n\(Character(UnicodeScalar(97 + $0 % 26)!))\r\n" }.joined()
        let harness = try FetchHarness { _ in
            [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + small),
             .send("1"), .pause(.milliseconds(50)), .send("0\r\n0123456"), .pause(.milliseconds(50)),
             .send("789abcdef\r"), .pause(.milliseconds(50)), .send("\n0\r\nX-Checksum: 1\r\n\r\n")]
        }
        let response = try #require(try harness.fetch("/chunks")?.response)
        let expected = (0..<300).map { String(Character(UnicodeScalar(97 + $0 % 26)!)) }.joined() + "0123456789abcdef"
        #expect(String(decoding: response.body, as: UTF8.self) == expected)
        #expect(response.headers["X-Checksum"] == nil, "trailers are dropped")
    }

    @Test func aBodyWithoutLengthEndsWhenTheServerCloses() throws {
        let harness = try FetchHarness { _ in
            [.send("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst, "), .pause(.milliseconds(50)), .send("then the end"), .close]
        }
        let response = try #require(try harness.fetch("/old")?.response)
        #expect(response.version == "HTTP/1.0")
        #expect(String(decoding: response.body, as: UTF8.self) == "first, then the end")
    }

    @Test func aHEADAnswerHasNoBodyAndEndsWithoutWaitingForOne() throws {
        // The server announces 1,234 bytes and keeps the connection open: waiting for them
        // would end at the deadline instead of an answer.
        let harness = try FetchHarness { _ in [.send("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nETag: \"v1\"\r\n\r\n")] }
        let response = try #require(harness.fetch(HTTPClientRequest(method: "HEAD", url: try harness.url("/doc")))?.response)
        #expect(response.status == 200 && response.body.isEmpty && response.headers["ETag"] == "\"v1\"")
        #expect(harness.server.requests.first?.hasPrefix("HEAD /doc HTTP/1.1\r\n") == true)
    }

    @Test func aRedirectIsGivenBackWithItsLocationResolvedAgainstTheRequest() throws {
        let harness = try FetchHarness { request in
            request.hasPrefix("GET /a/relative ")
                ? [.send(answer("302 Found", ["Location: ../next?x=1#frag"]))]
                : [.send(answer("301 Moved Permanently", ["Location: https://other.example/elsewhere"]))]
        }
        let relative = try #require(try harness.fetch("/a/relative")?.response)
        #expect(relative.status == 302 && relative.isRedirect)
        #expect(relative.location == (try harness.url("/next?x=1")))
        let absolute = try #require(try harness.fetch("/absolute")?.response)
        #expect(absolute.status == 301)
        #expect(absolute.location == (try HTTPURL("https://other.example/elsewhere")))
        #expect(harness.server.requests.count == 2, "the client follows nothing by itself")
    }

    @Test func aContentLengthOverTheBoundIsRefusedFromTheHead() throws {
        let harness = try FetchHarness { _ in
            [.send("HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\n\r\n"), .repeated(Array(repeating: 0x61, count: 16384), times: 640)]
        }
        let result = try harness.fetch("/big", limits: HTTPClientLimits(timeout: .seconds(10), maxBodyBytes: 65536))
        #expect(result?.failure == .tooLarge("localhost:\(harness.server.port) sent a Content-Length of 10485760 bytes, over the bound of 65536"))
    }

    @Test(arguments: [true, false])
    func aStreamedBodyStopsAtTheBoundAsItArrives(chunked: Bool) throws {
        // 10 MiB offered, chunked or until the close: the client stops at 64 KiB and closes,
        // so the server can never write it all.
        let piece = Array(repeating: UInt8(0x62), count: 16384)
        let harness = try FetchHarness { _ in
            chunked
                ? [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), .repeated(Array("4000\r\n".utf8) + piece + [13, 10], times: 640)]
                : [.send("HTTP/1.1 200 OK\r\n\r\n"), .repeated(piece, times: 640)]
        }
        let result = try harness.fetch("/stream", limits: HTTPClientLimits(timeout: .seconds(10), maxBodyBytes: 65536))
        #expect(result?.failure == .tooLarge("localhost:\(harness.server.port) sent an answer body over 65536 bytes"))
        let connection = try #require(harness.server.connections.first)
        harness.run { connection.closed }
        #expect(connection.closed, "the server's writes failed once the client had closed")
        #expect(connection.sent < 10_485_760)
    }

    @Test func aServerThatNeverAnswersEndsAtTheDeadlineWhileALoopTimerKeepsFiring() throws {
        let harness = try FetchHarness { _ in [] }
        var ticks = 0
        var tick: (() -> Void)!
        tick = { ticks += 1; harness.loop.schedule(after: .milliseconds(50), tick) }
        harness.loop.schedule(after: .milliseconds(50), tick)
        let result = try harness.fetch("/silent", limits: HTTPClientLimits(timeout: .seconds(1)))
        #expect(result?.failure == .timeout("no answer from localhost:\(harness.server.port) within 1000 ms"))
        #expect(ticks >= 3, "the loop went on meanwhile (\(ticks) ticks)")
        #expect(harness.server.requests.count == 1, "the request had gone out")
    }

    @Test func aServerThatTricklesItsBodyAByteEvery200msEndsAtTheDeadline() throws {
        let trickle = (0..<100).flatMap { _ in [ScriptedServer.Step.pause(.milliseconds(200)), .send("x")] }
        let harness = try FetchHarness { _ in [.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")] + trickle }
        var ticks = 0
        var tick: (() -> Void)!
        tick = { ticks += 1; harness.loop.schedule(after: .milliseconds(50), tick) }
        harness.loop.schedule(after: .milliseconds(50), tick)
        let result = try harness.fetch("/trickle", limits: HTTPClientLimits(timeout: .seconds(1)))
        #expect(result?.failure == .timeout("no answer from localhost:\(harness.server.port) within 1000 ms"))
        #expect(ticks >= 3, "the loop went on meanwhile (\(ticks) ticks)")
        let connection = try #require(harness.server.connections.first)
        #expect(connection.sent < "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8.count + 100)
    }

    @Test func aHeadOverItsBoundIsTooLarge() throws {
        let harness = try FetchHarness { _ in [.send(answer("200 OK", ["X-Padding: " + String(repeating: "p", count: 2000)]))] }
        let result = try harness.fetch("/", limits: HTTPClientLimits(timeout: .seconds(10), maxHeadBytes: 1024))
        #expect(result?.failure == .tooLarge("localhost:\(harness.server.port) sent an answer head over 1024 bytes"))
    }

    @Test func aMalformedStatusLineIsRefusedWithTheLine() throws {
        let harness = try FetchHarness { _ in [.send("HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n")] }
        let result = try harness.fetch("/")
        #expect(result?.failure == .malformedAnswer(#"localhost:\#(harness.server.port) sent a status line that is not HTTP/1.x: "HTTP/1.1 2OO OK""#))
    }

    @Test func aServerThatClosesMidBodyBreaksTheConnection() throws {
        let harness = try FetchHarness { _ in [.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), .close] }
        let result = try harness.fetch("/")
        #expect(result?.failure == .connectionBroken("localhost:\(harness.server.port) closed the connection before the answer's end"))
    }

    @Test func anAddressTheRuleRefusesIsNeverConnectedTo() throws {
        let harness = try FetchHarness(admits: { _ in false }) { _ in [.send(answer("200 OK"))] }
        let result = try harness.fetch("/")
        #expect(result?.failure == .blockedAddress("every address of localhost is one this server may not connect to"))
        #expect(harness.server.connections.isEmpty && !harness.server.hasPendingConnection)
    }

    @Test func aCertificateForAnotherNameIsRefusedInOpenSSLsWords() throws {
        let harness = try FetchHarness(names: ["DNS:metadata.example.com"]) { _ in [.send(answer("200 OK"))] }
        guard case .tls(let words)? = try harness.fetch("/")?.failure else {
            Issue.record("expected a TLS failure")
            return
        }
        #expect(words.hasPrefix("TLS with localhost:\(harness.server.port): "), "\(words)")
        #expect(words.contains("certificate verification failed") && words.contains("hostname mismatch"), "\(words)")
        #expect(harness.server.requests.isEmpty)
    }

    @Test func aNameThatDoesNotResolveIsNoSuchName() throws {
        // A label over 63 bytes: the C library refuses it before any query, so the answer
        // needs no DNS server and is the same everywhere.
        let host = String(repeating: "a", count: 64) + ".invalid"
        let harness = try FetchHarness { _ in [] }
        guard case .noSuchName(let words)? = harness.fetch(HTTPClientRequest(url: try HTTPURL("https://\(host)/")))?.failure else {
            Issue.record("expected no such name")
            return
        }
        #expect(words.hasPrefix("cannot resolve \"\(host)\": "), "\(words)")
    }

    @Test func plainHTTPIsRefusedUnlessTheClientAllowsIt() throws {
        let refusing = try FetchHarness(tls: false) { _ in [.send(answer("200 OK", body: "plain"))] }
        let refused = refusing.fetch(HTTPClientRequest(url: try refusing.url("/", scheme: "http")))
        #expect(refused?.failure == .invalidRequest("http://localhost:\(refusing.server.port) is plain http:, which this client does not fetch"))
        #expect(refusing.server.connections.isEmpty && !refusing.server.hasPendingConnection)

        let allowing = try FetchHarness(tls: false, allowsPlainHTTP: true) { _ in [.send(answer("200 OK", body: "plain"))] }
        let response = try #require(allowing.fetch(HTTPClientRequest(url: try allowing.url("/", scheme: "http")))?.response)
        #expect(String(decoding: response.body, as: UTF8.self) == "plain")
    }

    @Test func aCancelledFetchClosesItsConnectionAndGivesNoResult() throws {
        let harness = try FetchHarness { _ in [] }
        var result: Result<HTTPClientResponse, HTTPClientFailure>?
        let fetch = harness.client.fetch(HTTPClientRequest(url: try harness.url("/")), limits: HTTPClientLimits(timeout: .seconds(10))) {
            result = $0
        }
        harness.run { !harness.server.requests.isEmpty }
        fetch.cancel()
        let connection = try #require(harness.server.connections.first)
        harness.run { connection.peerEnded }
        #expect(connection.peerEnded)
        #expect(result == nil)
    }
}
