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

/// Where the answer to one request goes: the connection that read it, or a test's recorder,
/// which hands a handler's `handle` a responder without a socket (`HTTPResponder(answering:)`).
/// Loop thread only.
protocol RequestAnswering: AnyObject {
    var loop: EventLoop { get }
    func respond(_ response: HTTPResponse)
    func park(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest
    func holdUntilEndOfTurn(_ request: HTTPRequest, timeout: TimeSpan) -> ParkedRequest
    func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)]) -> EventStream
    /// The answer of a request `park` or `holdUntilEndOfTurn` gave.
    func finishParked(_ response: HTTPResponse)
    /// The answer when a parked request's owner did not answer in time.
    func refusal(status: Int, reason: String) -> HTTPResponse
}

/// The way to answer one request. Valid only during `HTTPHandler.handle`; after that, use
/// the `ParkedRequest` or `EventStream` it gave.
public struct HTTPResponder {
    unowned let target: any RequestAnswering
    let request: HTTPRequest

    init(answering target: any RequestAnswering, request: HTTPRequest) {
        self.target = target
        self.request = request
    }

    public func respond(_ response: HTTPResponse) {
        target.respond(response)
    }

    /// Holds the request open. It ends by `ParkedRequest.respond`, by its timer (`onTimeout`
    /// must then answer), when the server stops (the same `onTimeout`), or when the client goes
    /// away (`onCancel`).
    public func park(timeout: TimeSpan) -> ParkedRequest {
        target.park(request, timeout: timeout)
    }

    /// Holds an answer that leaves before the loop sleeps again (the API's group commit
    /// answers after the turn's COMMIT). This is not a wait: the connection keeps its epoll
    /// interest (no `epoll_ctl` for the hold and back for the answer) and sends the answer as
    /// soon as it is given. `timeout` only guards against a turn that never ends.
    public func parkUntilEndOfTurn(timeout: TimeSpan) -> ParkedRequest {
        target.holdUntilEndOfTurn(request, timeout: timeout)
    }

    /// Answers `200` with `text/event-stream` and keeps the connection for events.
    public func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)] = []) -> EventStream {
        target.openEventStream(pingInterval: pingInterval, headers: headers)
    }
}
