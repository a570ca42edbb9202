@testable import API
import DomainTestSupport
import EventLoop
@testable import HTTP
import JSON
import Relaydeck
import TestSupport
import Testing

/// An `APIHandler` over a migrated store, with a settable wall clock, a loop on a manual clock
/// (its `now` drives the rate limits), and requests built from real heads. A request goes
/// through `APIHandler.handle`, as the server sends it, to a responder that records the
/// answer; the loop's turn then runs, so a write is answered after the turn's COMMIT (group
/// commit), as in production.
final class APIHarness {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    let loopClock = ManualClock()
    let loop: EventLoop
    let store: Store
    let services: Services
    let handler: APIHandler
    var deletions = 0
    /// The peer of requests that name none.
    var peer: PeerAddress = .ip(bytes: [192, 0, 2, 1], port: 50_000)
    /// The record of the last request the handler finished (its after-response hook).
    private var lastRecord: RequestRecord?

    init(configuration: APIConfiguration = APIConfiguration(), storePath: String? = nil, store: Store? = nil,
         extraGroups: @escaping (APIContext) -> [any RouteGroup] = { _ in [] }) throws {
        loop = try EventLoop(clock: loopClock)
        self.store = store ?? Store(path: storePath ?? ":memory:")
        _ = try self.store.open()
        services = Services(store: self.store, clock: clock, random: SeededRandom())
        handler = APIHandler(services: services, configuration: configuration, loop: loop, extraGroups: extraGroups)
        handler.onDeletion = { [unowned self] in self.deletions += 1 }
        handler.afterResponse = { [unowned self] record in lastRecord = record }
    }

    deinit {
        store.close()
    }

    /// Moves the loop's clock; the loop reads it at the start of its next iteration.
    func advanceLoop(seconds: Int) {
        loopClock.advance(by: .seconds(seconds))
        loop.runOnce(maxWait: .zero)
    }

    /// The `Host` every request has unless it names its own.
    static let host = "relaydeck.localhost"

    /// Sends one request; `body` gets a Content-Length.
    func send(_ method: String, _ target: String, _ headers: [(String, String)] = [], body: String? = nil,
              peer: PeerAddress? = nil) throws -> Answer {
        // A `*.localhost` name, one the `Host` check of the MCP and web routes takes
        // (`OwnOrigin`); a `Host` among `headers` replaces it.
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: \(Self.host)\r\n" }
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        let bodyBytes = Array((body ?? "").utf8)
        if body != nil {
            head += "Content-Length: \(bodyBytes.count)\r\n"
        }
        head += "\r\n"
        let request = HTTPRequest(head: try HTTPRequestHead(parsing: Array(head.utf8)), body: bodyBytes,
                                  peer: peer ?? self.peer, receivedAt: loop.now)
        let responder = RecordingResponder(loop: loop)
        lastRecord = nil
        handler.handle(request, HTTPResponder(answering: responder, request: request))
        // The end of the loop's turn: the queued work, the turn's COMMIT and its answers with it.
        loop.runOnce(maxWait: .zero)
        // A request held for work off the loop (`Pending`) whose work ended within the turn
        // was answered through its parked request: that is an answer too.
        let settled = responder.parked.map { !$0.isActive } ?? false
        guard let response = responder.response, !responder.waits || settled else {
            // A wait or a stream: the client goes away, so the handler forgets its waiter.
            responder.parked?.cancel()
            responder.stream?.closed()
            throw HarnessError.notAnImmediateAnswer
        }
        // A web file is answered before any record is made: it gets a blank one (no route,
        // no principal), as the activity log has nothing of it.
        var record = lastRecord ?? RequestRecord(method: request.method, receivedAt: request.receivedAt,
                                                 receivedAtWallMillis: handler.wallMillis(at: request.receivedAt))
        if lastRecord == nil { record.status = response.status }
        handler.flushActivity()
        return Answer(response: response, record: record)
    }

    // MARK: Fixtures through the API

    /// Creates an account through `POST /v1/accounts` and returns its ID and token.
    func createAccount(_ headers: [(String, String)] = [], peer: PeerAddress? = nil) throws -> (id: String, token: String) {
        let answer = try send("POST", "/v1/accounts", headers, body: "{}", peer: peer)
        try #require(answer.status == 201)
        let json = try answer.json()
        let id = try #require(json["account"]?["id"]?.stringValue)
        let token = try #require(json["token"]?.stringValue)
        return (id, token)
    }

    /// Creates a key through `POST /v1/keys` and returns its ID and secret.
    func createKey(token: String, label: String = "Cursor") throws -> (id: String, secret: String) {
        let answer = try send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "\#(label)"}"#)
        try #require(answer.status == 201)
        let json = try answer.json()
        let id = try #require(json["key"]?["id"]?.stringValue)
        let secret = try #require(json["secret"]?.stringValue)
        return (id, secret)
    }
}

/// The responder a harness request gets: it keeps the answer, and what parked or streamed.
private final class RecordingResponder: RequestAnswering {
    let loop: EventLoop
    private(set) var response: HTTPResponse?
    /// The request was parked for a wait, or opened a stream (not one held to the end of the
    /// turn, whose answer comes with the turn).
    private(set) var waits = false
    private(set) var parked: ParkedRequest?
    private(set) var stream: EventStream?

    init(loop: EventLoop) { self.loop = loop }

    func respond(_ response: HTTPResponse) {
        if self.response == nil { self.response = response }
    }

    func park(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest {
        waits = true
        let parked = ParkedRequest(request: request, owner: self)
        parked.arm(timeout: timeout)
        self.parked = parked
        return parked
    }

    func holdUntilEndOfTurn(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest {
        let held = ParkedRequest(request: request, owner: self)
        held.arm(timeout: timeout)
        parked = held
        return held
    }

    func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)]) -> EventStream {
        waits = true
        let stream = EventStream(connection: nil, loop: loop, pingInterval: pingInterval)
        self.stream = stream
        return stream
    }

    func finishParked(_ response: HTTPResponse) {
        respond(response)
    }

    func refusal(status: Int, reason: String) -> HTTPResponse {
        APIError.refusal(status: status).response
    }
}

enum HarnessError: Error {
    /// The endpoint parked or streamed: test it through `APIServer` instead.
    case notAnImmediateAnswer
}

func bearer(_ secret: String) -> (String, String) { ("Authorization", "Bearer " + secret) }
func apiKey(_ secret: String) -> (String, String) { ("X-API-Key", secret) }

/// A response as the tests read it.
struct Answer {
    let response: HTTPResponse
    /// What the handler recorded of the request.
    let record: RequestRecord
    /// The matched route's pattern, `(none)` when no route matched.
    var pattern: String { record.route ?? "(none)" }

    var status: Int { response.status }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    var headers: [String] { response.headers.map { "\($0.name): \($0.value)" } }

    func header(_ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func json() throws -> JSON { try JSONParser.parse(response.body) }
}

/// The exact error body of the contract.
func errorBody(_ code: String, _ message: String) -> String {
    #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
}

/// The exact 422 body: the message names the fields in order, `fields` maps each one.
func validationBody(_ fields: [(String, String)]) -> String {
    let names = fields.map(\.0).joined(separator: ", ")
    let map = fields.map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",")
    return #"{"error":{"code":"validation_failed","message":"Invalid fields: \#(names).","fields":{\#(map)}}}"#
}

/// The exact Account object.
func accountJSON(id: String, createdAt: String = "1760000000.0", liveActivities: Bool = true) -> String {
    #"{"id":"\#(id)","created_at":\#(createdAt),"settings":{"live_activities":\#(liveActivities)}}"#
}

/// The exact Key object; `lastHost` and `lastUsedAt` are JSON text (`null`, `"studio-mac"`).
func keyJSON(id: String, label: String, secret: String, createdAt: String = "1760000000.0",
             lastUsedAt: String = "null", lastHost: String = "null", scopes: [String] = allScopes) -> String {
    let scopeList = scopes.map { #""\#($0)""# }.joined(separator: ",")
    return #"{"id":"\#(id)","label":"\#(label)","prefix":"\#(secret.prefix(8))","last4":"\#(secret.suffix(4))","#
        + #""created_at":\#(createdAt),"last_used_at":\#(lastUsedAt),"last_client":null,"last_host":\#(lastHost),"#
        + #""scopes":[\#(scopeList)],"counts":{"todo":0,"in_progress":0,"done":0,"cancelled":0}}"#
}

/// Every scope, in the order a Key lists them.
let allScopes = ["tasks:read", "tasks:write", "questions", "notify", "messages", "inbox"]

