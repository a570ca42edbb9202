import EventLoop
import Logging

/// A request answered later: by `respond`, by its timer, when the server stops, or never,
/// when the client goes away first. Runs on the loop thread.
public final class ParkedRequest {
    public let request: HTTPRequest
    /// The connection (or a test's recorder) the answer goes to.
    weak var owner: (any RequestAnswering)?
    private let loop: EventLoop
    private var timer: LoopTimer?
    /// Called when the time is up, or when the server stops: it must call `respond`, or
    /// `restartTimer` for an answer on its way (a store's read), which the new time bounds.
    public var onTimeout: ((ParkedRequest) -> Void)?
    /// Called when the client went away before an answer; `respond` is then pointless.
    public var onCancel: ((ParkedRequest) -> Void)?
    public private(set) var isActive = true

    init(request: HTTPRequest, owner: any RequestAnswering) {
        self.request = request
        self.owner = owner
        loop = owner.loop
    }

    func arm(timeout: TimeSpan) {
        timer = loop.schedule(after: timeout) { [weak self] in self?.expire() }
    }

    /// Starts the time over: the request now waits `timeout` from here (a request that
    /// waited for one thing and now waits for another).
    public func restartTimer(_ timeout: TimeSpan) {
        guard isActive else { return }
        if let timer { loop.cancel(timer) }
        arm(timeout: timeout)
    }

    public func respond(_ response: HTTPResponse) {
        guard isActive else { return }
        finish()
        owner?.finishParked(response)
    }

    /// The answer is an event stream after all (a handler whose work waited, for the store,
    /// before it knew): `200` with `text/event-stream` on the connection, which is the
    /// stream's from here. Nil when the request has ended already (its client went away).
    public func openEventStream(pingInterval: TimeSpan, headers: [(name: String, value: String)] = []) -> EventStream? {
        guard isActive, let owner else { return nil }
        finish()
        return owner.openEventStream(pingInterval: pingInterval, headers: headers)
    }

    /// The time is up, or the server stops: the owner answers with what it has.
    func expire() {
        guard isActive else { return }
        timer = nil
        onTimeout?(self)
        if isActive && timer == nil {
            Log.error("a parked request was not answered when its time was up")
            respond(owner?.refusal(status: 500, reason: "parked request not answered") ?? HTTPResponse(status: 500))
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
        if let timer { loop.cancel(timer) }
        timer = nil
        // The closures often capture this object: drop them to break the cycle.
        onTimeout = nil
        onCancel = nil
    }
}
