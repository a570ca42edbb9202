import EventLoop
import HTTP
import JSON
import Relaydeck

/// `GET /v1/events` (`events.md`): the app's live stream of every change of its account.
final class EventRoutes: RouteGroup {
    /// A comment line after this long without an event, so proxies keep the connection.
    static let pingInterval = TimeSpan.seconds(20)

    let context: APIContext
    let streams: EventStreams
    private var storeCheck: LoopTimer?

    init(_ context: APIContext) {
        self.context = context
        streams = context.eventStreams
        context.services.hub.subscribe { [weak self] change in self?.streams.deliver(change) }
        storeCheck = context.loop.makeTimer { [weak self] in self?.checkStore() }
    }

    var routes: [Route] {
        [Route("/v1/events", [Endpoint(.get, .account { [self] call, account in try await open(call, account) })])]
    }

    /// `ready` first; `503` when the store is away at the time of the connect.
    private func open(_ call: Call, _ account: AccountCaller) async throws -> Outcome {
        guard context.services.store.isHealthy() else {
            throw StoreError.unavailable(retryAfterSeconds: Store.retryAfterSeconds)
        }
        let accountID = account.accountID
        // A stream opened with the web console's cookie ends with its session.
        let head = call.request.head
        let sessionID = head.headers("authorization").isEmpty && head.headers("x-api-key").isEmpty
            ? try await WebCookie.session(of: call.request, context: context)?.id : nil
        return .stream(StreamOpening(
            pingInterval: Self.pingInterval, headers: [],
            opened: { [self] stream in
                var writer = JSONWriter(capacity: 48)
                writer.beginObject()
                writer.key("account_id")
                writer.string(accountID)
                writer.endObject()
                stream.send(event: "ready", data: writer.bytes)
                streams.add(stream, accountID: accountID)
                if let sessionID { context.sessionStreams.add(stream, session: sessionID) }
                scheduleStoreCheck()
            },
            closed: { [weak self] stream in
                self?.streams.remove(stream, accountID: accountID)
                if let sessionID { self?.context.sessionStreams.remove(stream, session: sessionID) }
            }))
    }

    /// While streams are open, the store is looked at as often as the pings go: a store
    /// that is lost ends them (`events.md#reconnect`), so the app reconnects and gets `503`
    /// until it is back.
    private func scheduleStoreCheck() {
        guard let storeCheck, !storeCheck.isScheduled else { return }
        context.loop.reschedule(storeCheck, at: context.loop.now + Self.pingInterval)
    }

    private func checkStore() {
        guard streams.count > 0 else { return }
        if !context.services.store.isHealthy() {
            streams.endAll()
            return
        }
        scheduleStoreCheck()
    }
}
