import EventLoop
import HTTP
import JSON
import Logging
import Relaydeck
import TLS

/// The REST surface on the HTTP server. For each request: route it, check that its body is
/// JSON, pass the gate (credential, app code, rate limit, type), parse the body, run the
/// endpoint, and carry out what the endpoint asked (answer, park, stream). Errors become the contract's shape in one place
/// (`APIError.from`). The request's record goes to `afterResponse` once the answer is out
/// (`rest-api.md#activity-log`: an unknown path, or a body that is not JSON, is refused
/// before the credential is read).
public final class APIHandler: HTTPHandler {
    let context: APIContext
    let router: Router
    var gate: Gate
    /// The write transaction of this loop turn and the answers waiting for its COMMIT
    /// (`APIHandler+GroupCommit`).
    var turn: TurnCommit?
    /// Runs for every request the API handled, after its answer was written (or its stream
    /// or wait ended). The activity log hangs here.
    public var afterResponse: ((RequestRecord) -> Void)?

    public var onDeletion: (() -> Void)? {
        get { context.onDeletion }
        set { context.onDeletion = newValue }
    }

    public convenience init(services: Services, configuration: APIConfiguration, loop: EventLoop) {
        self.init(services: services, configuration: configuration, loop: loop, extraGroups: { _ in [] })
    }

    /// `extraGroups` adds routes beside the contract's (tests use it for a waiting route).
    init(services: Services, configuration: APIConfiguration, loop: EventLoop,
         extraGroups: (APIContext) -> [any RouteGroup]) {
        context = APIContext(services: services, configuration: configuration, loop: loop)
        router = Router(groups: RouteGroups.all(context) + extraGroups(context))
        gate = Gate(context: context)
        context.requestMetrics = RequestMetrics(routes: router.routes.map(\.pattern), groupOfRoute: router.groupOfRoute,
                                                groups: router.groups)
        // Every committed change wakes the parked calls that wait on it; a deletion ends them.
        services.hub.subscribe { [weak context] change in context?.wakeups.changed(change) }
    }

    /// Parked calls waiting now.
    public var waitingCount: Int { context.wakeups.count }

    /// Lets `/oauth/authorize` fetch Client ID Metadata Documents: with the system's CAs and
    /// `tls`'s, to public addresses only unless `allowsPrivateHosts` (`OAUTH_ALLOW_PRIVATE_HOSTS`).
    public func installClientDocuments(tls: TLSClientContext, allowsPrivateHosts: Bool) {
        context.clientDocuments.install(loop: context.loop, tls: tls, allowsPrivateHosts: allowsPrivateHosts)
    }

    /// The server's open connections, for `/metrics`.
    public var openConnections: (() -> Int)? {
        get { context.openConnections }
        set { context.openConnections = newValue }
    }

    /// REST bodies built into a value so far: the tests see from it that a request refused at
    /// the gate never paid for the full parse.
    private(set) var bodiesParsed = 0

    // MARK: HTTPHandler

    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        if let file = WebFiles.answer(request.head) { responder.respond(file); return }
        var record = RequestRecord(method: request.method, receivedAt: request.receivedAt,
                                   receivedAtWallMillis: wallMillis(at: request.receivedAt))
        let prepared: Prepared
        do {
            prepared = try prepare(request, record: &record)
        } catch {
            deliver(.respond(failure(error, &record)), to: .responder(responder), record: record)
            return
        }
        if case .immediate(let body) = prepared.endpoint.access, !prepared.endpoint.writes {
            answerAfterCommit(executeAtOnce(prepared, body, record: &record), prepared, channel: .responder(responder),
                              record: record)
            return
        }
        // The rest runs as a task on the loop (`EventLoop.startTask`): with SQLite, whose
        // awaits all return at once, it has ended when `startTask` returns, as a plain call
        // would have. A request whose task waits for the store is parked meanwhile.
        let run = RequestRun(handler: self, prepared: prepared, record: record, responder: responder)
        context.loop.startTask(run)
        if !run.ended { park(run, prepared, record: record) }
    }

    /// The request after routing: the write lock if it writes, the gate, the endpoint, and
    /// its outcome carried out, on the request's channel (`RequestRun`).
    func process(_ prepared: Prepared, record: RequestRecord, run: RequestRun) async {
        var record = record
        guard prepared.endpoint.writes else {
            // A read after a write of this turn may have seen rows not committed yet: its
            // answer waits for the turn's COMMIT too.
            let outcome = await execute(prepared, record: &record)
            if run.isActive { answerAfterCommit(outcome, prepared, channel: run.channel, record: record) }
            return
        }
        switch takeWriteLock() {
        case .held:
            let outcome = await execute(prepared, record: &record)
            if run.isActive { answerAfterCommit(outcome, prepared, channel: run.channel, record: record) }
        case .busy where prepared.readsFirst:
            // A read that writes only when it finds something to mark (an inbox with items, a
            // question not seen yet) runs at once: what only reads answers while another
            // process holds the lock (a parked call ends at the end of its wait), and its own
            // write, if it needs one, is refused with 503 without waiting.
            let outcome = await execute(prepared, record: &record)
            if run.isActive { deliver(outcome, to: run.channel, record: record, prepared: prepared) }
        case .busy:
            waitForWriteLock(prepared, record: record, parked: run.channel.parked(timeout: Self.writeLockWait))
        case .unavailable:
            let outcome = await execute(prepared, record: &record)
            if run.isActive { deliver(outcome, to: run.channel, record: record, prepared: prepared) }
        }
    }

    /// A request whose task waits for the store: held for at most `writeLockWait`, then
    /// `503` (what the task ends with later is dropped, though its writes are kept, as a
    /// client's that went away); a client that goes away meanwhile ends its record.
    private func park(_ run: RequestRun, _ prepared: Prepared, record: RequestRecord) {
        let parked = run.channel.parked(timeout: Self.writeLockWait)
        run.channel = .parked(parked)
        // Not `record.parked`: the time waiting for the store is the server's.
        var record = record
        parked.onTimeout = { [weak self] _ in
            guard let self else { return }
            let unavailable = StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds)
            deliver(.respond(failure(unavailable, &record, prepared)), to: .parked(parked), record: record)
        }
        parked.onCancel = { [weak self] _ in
            record.ending = .clientWentAway
            self?.finish(record)
        }
    }

    public func refusal(status: Int, reason: String) -> HTTPResponse {
        APIError.refusal(status: status).response
    }

    /// Announces a change: the parked calls waiting on `topic` look again, soon.
    func wake(_ topic: WakeTopic) {
        context.wakeups.wake(topic)
    }

    // MARK: Steps

    /// A request that matched an endpoint, its body checked to be JSON (not parsed yet).
    struct Prepared {
        let request: HTTPRequest
        let endpoint: Endpoint
        let parameters: PathParameters
        /// The endpoint takes a body and one was sent: it passed `JSONParser.validate`.
        let hasBody: Bool

        /// A GET or HEAD that `writes`: it reads first and writes only what it found.
        var readsFirst: Bool { request.method == .get || request.method == .head }
    }

    /// Routing and whether the body is JSON: everything that needs no credential and no store.
    /// The contract refuses a body that is not JSON before it reads the credential
    /// (`rest-api.md#activity-log`), so that check comes first, but only as a scan of the
    /// bytes: the value is built after the gate (`execute`), and a client without a
    /// credential never makes the server build a large one.
    private func prepare(_ request: HTTPRequest, record: inout RequestRecord) throws -> Prepared {
        let path = Route.segments(of: request.head.pathBytes)
        guard let (index, route, parameters) = router.match(path) else { throw APIError.notFound }
        record.route = route.pattern
        record.routeIndex = index
        record.surface = route.surface
        guard let endpoint = route.endpoint(for: request.method) else {
            throw APIError.methodNotAllowed(allow: route.allowedMethods)
        }
        let hasBody = endpoint.takesBody && !request.body.isEmpty
        if hasBody {
            do {
                try JSONParser.validate(request.body)
            } catch {
                throw APIError.badJSON
            }
        }
        return Prepared(request: request, endpoint: endpoint, parameters: parameters, hasBody: hasBody)
    }

    /// The endpoint's screen, the gate, then the body's value, then the endpoint.
    func execute(_ prepared: Prepared, record: inout RequestRecord) async -> Outcome {
        var principal: Principal?
        do {
            try prepared.endpoint.screen?(prepared.request)
            if prepared.endpoint.needsCredential {
                // Finding the principal may await the store; the limit after it may not, and
                // only it changes the gate (a mutating call never spans an await).
                let identified = try await Gate.identify(prepared.request, to: prepared.endpoint, record: &record,
                                                         context: context)
                principal = try await gate.limit(identified, prepared.endpoint)
            }
        } catch {
            return .respond(failure(error, &record, prepared))
        }
        var call: Call
        switch admitted(prepared, record: &record) {
        case .refused(let outcome): return outcome
        case .admitted(let admitted): call = admitted
        }
        defer { record.apply(call.note) }
        do {
            return try await prepared.endpoint.run(&call, principal)
        } catch {
            return .respond(failure(error, &record, prepared))
        }
    }

    /// The same for an endpoint that never awaits and needs no credential (`/health`), with
    /// no task around it.
    private func executeAtOnce(_ prepared: Prepared, _ body: Endpoint.ImmediateBody, record: inout RequestRecord) -> Outcome {
        do {
            try prepared.endpoint.screen?(prepared.request)
        } catch {
            return .respond(failure(error, &record, prepared))
        }
        var call: Call
        switch admitted(prepared, record: &record) {
        case .refused(let outcome): return outcome
        case .admitted(let admitted): call = admitted
        }
        defer { record.apply(call.note) }
        do {
            return try body(&call)
        } catch {
            return .respond(failure(error, &record, prepared))
        }
    }

    private enum CallOrRefusal {
        case admitted(Call)
        case refused(Outcome)
    }

    /// The endpoint's call with the body's value, or the answer that refuses the body.
    private func admitted(_ prepared: Prepared, record: inout RequestRecord) -> CallOrRefusal {
        do {
            return .admitted(Call(request: prepared.request, path: prepared.parameters, body: try parsedBody(prepared)))
        } catch {
            return .refused(.respond(failure(error, &record, prepared)))
        }
    }

    /// The value of a body `prepare` validated. The parser refuses exactly what the validator
    /// refuses, so the `400` here cannot happen; it stays the answer rather than a trap.
    private func parsedBody(_ prepared: Prepared) throws(APIError) -> JSON? {
        guard prepared.hasBody else { return nil }
        bodiesParsed += 1
        do {
            return try JSONParser.parse(prepared.request.body)
        } catch {
            throw APIError.badJSON
        }
    }

    /// The answer to `error`: the REST body; for a failure of the server itself (`5xx`: the
    /// store away or busy, a COMMIT that failed) on an endpoint with its own protocol
    /// (`Endpoint.failureAnswer`: `/mcp` answers JSON-RPC), that endpoint's answer.
    func failure(_ error: any Error, _ record: inout RequestRecord, _ prepared: Prepared? = nil) -> HTTPResponse {
        var failure = APIError.from(error)
        if let prepared, let challenge = BearerChallenge.header(for: failure, request: prepared.request, surface: record.surface,
                                                                principal: record.principal,
                                                                configuration: context.configuration) {
            failure.headers.append(challenge)
        }
        record.note(failure)
        if let prepared, failure.status >= 500, let answer = prepared.endpoint.failureAnswer {
            return answer(prepared.request, failure)
        }
        return failure.response
    }

    /// The wall clock at `instant` of the loop's clock (the request's first byte came a
    /// moment before the handler saw it).
    func wallMillis(at instant: Instant) -> Int64 {
        context.services.clock.wallMillis - (context.loop.clock.now - instant).milliseconds
    }

    /// The end of a request: its duration, the debug line, its activity entry, the hook.
    func finish(_ record: RequestRecord) {
        var record = record
        record.duration = context.loop.clock.now - record.receivedAt
        if Log.enabled(.debug) {
            Log.debug("request", [
                "method": record.method.name, "route": record.route ?? "(none)", "status": String(record.status),
                "duration_ms": Self.millisText(record.duration.nanoseconds / 1000),
            ])
        }
        context.activity.record(record)
        // A wait's or a stream's duration is the client's, not the server's work.
        let timed = !record.parked && record.ending == .answered
        context.requestMetrics?.count(route: record.routeIndex, method: record.method, status: record.status,
                                      micros: timed ? Int(record.duration.nanoseconds / 1000) : nil)
        afterResponse?(record)
    }

    /// Writes the activity entries that wait for their batch now: at the stop, and in tests,
    /// which run no loop turn.
    /// Ends every event stream (changes were missed: each client opens its stream again
    /// and reads what is current, `events.md#reconnect`).
    public func endEventStreams() {
        context.eventStreams.endAll()
    }

    public func flushActivity() {
        context.activity.flush()
    }

    /// The same, awaited (the server's stop, before the store closes).
    public func flushedActivity() async {
        await context.activity.flushed()
    }

    static func millisText(_ micros: Int64) -> String {
        let whole = micros / 1000
        let fraction = micros % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(whole).\(padded)"
    }
}
