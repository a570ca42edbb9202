import EventLoop
import HTTP
import Relaydeck

/// `GET /metrics` on the address of `METRICS_LISTEN`, a server of its own beside the API's
/// (off by default): the same exposition as the main port's route, and only that (any other
/// path is `404`, another method `405`). The address is what protects it, so it asks for no
/// token unless `METRICS_TOKEN` is set too. Its requests are not counted in the request
/// metrics: a scrape there never changes what it reports.
public final class MetricsListener: HTTPHandler {
    private let metrics: MetricsRoutes
    private let loop: EventLoop

    init(context: APIContext) {
        metrics = MetricsRoutes(context)
        loop = context.loop
    }

    /// The exposition reads the store through a session: a task on the loop. With SQLite it
    /// has answered when this returns; else the request waits for it, parked, at most
    /// `APIHandler.writeLockWait`, then `503`.
    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        var parked: ParkedRequest?
        var answered: HTTPResponse?
        loop.startTask { [self] in
            let response = await answer(request)
            if let parked { parked.respond(response) } else { answered = response }
        }
        if let answered {
            responder.respond(answered)
            return
        }
        let waiting = responder.park(timeout: APIHandler.writeLockWait)
        waiting.onTimeout = { parked in parked.respond(APIError.unavailable(retryAfter: Store.retryAfterSeconds).response) }
        parked = waiting
    }

    func answer(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.head.pathBytes.elementsEqual("/metrics".utf8) else { return APIError.notFound.response }
        guard request.method == .get || request.method == .head else {
            return APIError.methodNotAllowed(allow: [.get, .head]).response
        }
        do {
            try metrics.checkToken(request.head)
        } catch {
            return error.response
        }
        return await metrics.answer()
    }

    public func refusal(status: Int, reason: String) -> HTTPResponse {
        APIError.refusal(status: status).response
    }
}

extension APIHandler {
    /// The handler of a `METRICS_LISTEN` server: reads this handler's counters.
    public func metricsListener() -> MetricsListener {
        MetricsListener(context: context)
    }
}
