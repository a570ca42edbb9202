import EventLoop

/// What the server calls for each request. Runs on the loop thread.
public protocol HTTPHandler: AnyObject {
    /// Answers the request through `responder`: at once, by parking it, or by opening an
    /// event stream. A handler that returns without doing one of these is a defect: the
    /// connection answers 500.
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder)

    /// The answer for a request the server refused before a handler saw it (a malformed
    /// request, a limit, a timeout, too many connections), in the body shape of the API.
    /// `status` is the HTTP status; `reason` is for the log, not for the client.
    func refusal(status: Int, reason: String) -> HTTPResponse
}

/// The way to answer one request. Valid only during `HTTPHandler.handle`; after that, use
/// the `ParkedRequest` or `EventStream` it gave.
public struct HTTPResponder {
    unowned let connection: HTTPConnection
    let request: HTTPRequest

    init(connection: HTTPConnection, request: HTTPRequest) {
        self.connection = connection
        self.request = request
    }

    public func respond(_ response: HTTPResponse) {
        connection.respond(response)
    }

    /// Holds the request open. It ends by `ParkedRequest.respond`, by its timer (`onTimeout`
    /// must then answer), when the server stops (the same `onTimeout`), or when the client goes
    /// away (`onCancel`).
    public func park(timeout: TimeSpan) -> ParkedRequest {
        connection.park(request, timeout: timeout)
    }

    /// Parks a request whose answer comes before the loop sleeps again (the API's group
    /// commit): the connection's epoll interest is left as it is, instead of being changed
    /// for the wait and back for the answer (two `epoll_ctl` calls per request). `timeout`
    /// only guards against a turn that never ends.
    public func parkUntilEndOfTurn(timeout: TimeSpan) -> ParkedRequest {
        let parked = connection.park(request, timeout: timeout)
        parked.endsThisTurn = true
        return parked
    }

    /// Answers `200` with `text/event-stream` and keeps the connection for events.
    public func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)] = []) -> EventStream {
        connection.openEventStream(pingInterval: pingInterval, headers: headers)
    }
}
