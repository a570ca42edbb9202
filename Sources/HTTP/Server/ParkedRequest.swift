import EventLoop
import Logging

/// A request answered later: by `respond`, by its timer, when the server stops, or never,
/// when the client goes away first. Runs on the loop thread.
public final class ParkedRequest {
    public let request: HTTPRequest
    weak var connection: HTTPConnection?
    private var timer: LoopTimer?
    /// Called when the time is up, or when the server stops: it must call `respond`.
    public var onTimeout: ((ParkedRequest) -> Void)?
    /// Called when the client went away before an answer; `respond` is then pointless.
    public var onCancel: ((ParkedRequest) -> Void)?
    public private(set) var isActive = true
    /// Answered before the loop sleeps (`HTTPResponder.parkUntilEndOfTurn`).
    var endsThisTurn = false

    init(request: HTTPRequest, connection: HTTPConnection) {
        self.request = request
        self.connection = connection
    }

    func arm(loop: EventLoop, timeout: TimeSpan) {
        timer = loop.schedule(after: timeout) { [weak self] in self?.expire() }
    }

    /// Starts the time over: the request now waits `timeout` from here (a request that
    /// waited for one thing and now waits for another).
    public func restartTimer(_ timeout: TimeSpan) {
        guard isActive, let loop = connection?.server.loop else { return }
        if let timer { loop.cancel(timer) }
        arm(loop: loop, timeout: timeout)
    }

    public func respond(_ response: HTTPResponse) {
        guard isActive else { return }
        finish()
        connection?.finishParked(response)
    }

    /// The time is up, or the server stops: the owner answers with what it has.
    func expire() {
        guard isActive else { return }
        onTimeout?(self)
        if isActive {
            Log.error("a parked request was not answered when its time was up")
            respond(connection?.server.handler.refusal(status: 500, reason: "parked request not answered") ?? HTTPResponse(status: 500))
        }
    }

    /// The connection closed under the request.
    func cancel() {
        guard isActive else { return }
        let onCancel = self.onCancel
        finish()
        onCancel?(self)
    }

    private func finish() {
        isActive = false
        if let timer, let loop = connection?.server.loop { loop.cancel(timer) }
        timer = nil
        // The closures often capture this object: drop them to break the cycle.
        onTimeout = nil
        onCancel = nil
    }
}
