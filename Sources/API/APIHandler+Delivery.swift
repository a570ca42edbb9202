import EventLoop
import HTTP
import Relaydeck

/// Where a request's task answers: its responder while it runs within `startTask`, the
/// parked request once it waited for the store (`APIHandler.park`).
final class RequestRun: LoopTask {
    private unowned let handler: APIHandler
    private let prepared: APIHandler.Prepared
    private let record: RequestRecord
    var channel: APIHandler.Channel
    /// The task has ended.
    var ended = false

    init(handler: APIHandler, prepared: APIHandler.Prepared, record: RequestRecord, responder: HTTPResponder) {
        self.handler = handler
        self.prepared = prepared
        self.record = record
        channel = .responder(responder)
    }

    func run() async {
        await handler.process(prepared, record: record, run: self)
        ended = true
    }

    /// Whether an answer still has somewhere to go: not after the parked request's time was
    /// up or its client went away (both answered or recorded it already).
    var isActive: Bool {
        if case .parked(let parked) = channel { return parked.isActive }
        return true
    }
}

extension APIHandler {
    /// Where an outcome goes: the responder of a request being handled, or a request that
    /// was parked while it waited for the write lock.
    enum Channel {
        case responder(HTTPResponder)
        case parked(ParkedRequest)

        /// The request parked for `timeout` from now: parked now, or its time started over
        /// when it was parked already (it waited for the lock, and now waits for another thing).
        func parked(timeout: TimeSpan) -> ParkedRequest {
            switch self {
            case .responder(let responder):
                return responder.park(timeout: timeout)
            case .parked(let waiting):
                waiting.restartTimer(timeout)
                return waiting
            }
        }
    }

    /// Carries out an outcome: answers, parks (when `Wakeups.admission` lets it), holds it
    /// for work off the loop, or opens a stream; the record goes to the hook once the answer
    /// is out. `prepared` is the request, which only a `Pending` needs (to run its rest).
    func deliver(_ outcome: Outcome, to channel: Channel, record: RequestRecord, prepared: Prepared? = nil) {
        var record = record
        switch outcome {
        case .respond(let response):
            switch channel {
            case .responder(let responder): responder.respond(response)
            case .parked(let parked): parked.respond(response)
            }
            record.status = response.status
            finish(record)
        case .park(let wait):
            if let full = context.wakeups.admission(for: record.principal) {
                // An MCP tool asks the same admission before it parks (and answers its own
                // tool error); a refusal here would still be JSON-RPC, through `failed`.
                let refusal = full.error
                record.note(refusal)
                deliver(.respond(wait.failed(refusal)), to: channel, record: record)
                return
            }
            record.parked = true
            let parked = channel.parked(timeout: wait.timeout)
            let waiter = Waiter(wait: wait, record: record, parked: parked, loop: context.loop) { [weak self] waiter in
                self?.context.wakeups.remove(waiter)
                self?.finish(waiter.record)
            }
            context.wakeups.add(waiter)
        case .pending(let pending):
            guard let prepared else {
                deliver(.respond(failure(APIError.defect("work off the loop without its request"), &record)),
                        to: channel, record: record)
                return
            }
            record.parked = true
            let parked = channel.parked(timeout: pending.timeout)
            let hold = PendingHold(handler: self, prepared: prepared, record: record, parked: parked, expired: pending.expired)
            pending.start { rest in hold.resume(rest) }
        case .stream(let opening):
            let stream: EventStream
            switch channel {
            case .responder(let responder):
                stream = responder.openEventStream(pingInterval: opening.pingInterval, headers: opening.headers)
            case .parked(let parked):
                // Its task waited for the store (PostgreSQL's), so the request was parked.
                guard let opened = parked.openEventStream(pingInterval: opening.pingInterval, headers: opening.headers) else {
                    return
                }
                stream = opened
            }
            record.status = 200
            stream.onClose = { [weak self] closed in
                opening.closed?(closed)
                var ended = record
                ended.ending = .streamEnded
                self?.finish(ended)
            }
            opening.opened(stream)
        }
    }
}
