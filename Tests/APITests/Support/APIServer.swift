@testable import API
import Clock
import DomainTestSupport
import EventLoop
import HTTP
import HTTPTestSupport
import Relaydeck
import SQLite

/// The API handler behind a real HTTP server on 127.0.0.1, for what only `handle` does:
/// parking, streaming, and the after-response hook. One thread; the test pumps the loop.
final class APIServer {
    let wall = ManualClock()
    let loopback: LoopbackServer
    let store: Store
    let handler: APIHandler
    let services: Services
    /// Every record the after-response hook got, in order.
    private(set) var records: [RequestRecord] = []

    /// `storePath` nil: in memory. The store never waits in SQLite's busy handler, as in the
    /// server.
    init(storePath: String? = nil, configuration: APIConfiguration = APIConfiguration(),
         extraGroups: @escaping (APIContext) -> [any RouteGroup] = { _ in [] }) throws {
        var options = Database.Options()
        options.busyTimeoutMillis = 0
        store = Store(path: storePath ?? ":memory:", options: options, clock: wall)
        _ = try store.open()
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        services = Services(store: store, clock: wall, random: SeededRandom())
        handler = APIHandler(services: services, configuration: configuration, loop: loop, extraGroups: extraGroups)
        loopback = try LoopbackServer(loop: loop, clock: clock, handler: handler)
        handler.afterResponse = { [unowned self] record in records.append(record) }
    }

    deinit { store.close() }

    /// An account token, made through the API itself.
    func accountToken() throws -> String {
        let client = loopback.connect()
        client.send("POST /v1/accounts HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}")
        let text = loopback.response(client)?.bodyText ?? ""
        guard let start = text.firstRange(of: "mca_") else { throw HarnessError.notAnImmediateAnswer }
        return String(text[start.lowerBound...].prefix(47))
    }

    /// A new key's secret, made with the account token.
    func keySecret(token: String, label: String = "Cursor") throws -> String {
        let client = loopback.connect()
        let body = #"{"label":"\#(label)"}"#
        client.send("POST /v1/keys HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let text = loopback.response(client)?.bodyText ?? ""
        guard let start = text.firstRange(of: #""secret":""#) else { throw HarnessError.notAnImmediateAnswer }
        return String(text[start.upperBound...].prefix(47))
    }

    /// The ID of the key whose secret this is, from `GET /v1/agents`.
    func keyID(secret: String) throws -> String {
        let client = loopback.connect()
        get(client, "/v1/agents", token: secret)
        let text = loopback.response(client)?.bodyText ?? ""
        guard let start = text.firstRange(of: #""key_id":""#) else { throw HarnessError.notAnImmediateAnswer }
        return String(text[start.upperBound...].prefix(30))
    }

    func get(_ client: TestClient, _ target: String, token: String) {
        client.send("GET \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n")
    }
}
