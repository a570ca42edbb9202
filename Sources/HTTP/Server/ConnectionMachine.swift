import EventLoop
import Transports

/// The decisions of one connection, as a value: it takes an event (bytes read, an answer
/// given, output written, the client gone, a deadline reached, an epoll event, the end of the
/// turn) and returns what to do (`Actions`: hand a request to the handler, write `100
/// Continue`, encode an answer in a given shape, flush now or at the end of the turn, shut
/// down the write side, close, change the interest, arm the timer). It owns the parser and
/// every field a decision reads; it owns no bytes to send, no socket and no loop, so it is
/// driven by events alone in tests (`ConnectionMachineTests`). `HTTPConnection` is its shell:
/// it reads and writes the transport, performs the actions and calls the handler. The rules
/// of interest, deadline and epoll events are `ConnectionWants`'s.
///
/// `Actions` is one struct, returned by value: an event costs no allocation.
struct ConnectionMachine {
    enum State: Equatable {
        /// Waiting for, or reading, a request.
        case reading
        /// The handler is running for a request.
        case handling
        /// The request is parked; the client is watched for going away.
        case parked
        /// The answer is held to the end of this loop turn (the API's group commit): it comes
        /// before the loop sleeps, so the epoll interest stays as it is.
        case held
        /// An event stream owns the connection.
        case streaming
        /// The last answer is being written; then the connection closes.
        case closingAfterWrite(linger: Bool)
        /// The answer is out and our side shut down; unread input is drained until the client
        /// closes or the linger time ends.
        case lingering
        case closed
    }

    typealias DeadlineKind = ConnectionWants.DeadlineKind

    /// How an answer's head and body are written: the shell encodes, the machine decides.
    struct AnswerShape: Equatable {
        var keepAlive: Bool
        var version: HTTPVersion
        /// A `HEAD` request: the head only, with the body's length.
        var omitsBody: Bool
        /// A produced body goes as chunks (HTTP/1.1), or up to the close (HTTP/1.0).
        var chunked: Bool
    }

    struct Refusal: Equatable {
        var status: Int
        var reason: String
    }

    /// The shell's facts an event may need: what it holds that the machine does not.
    struct Outside {
        /// Answer bytes (or a produced body) wait in the shell's queue.
        var hasOutput = false
        /// The unsent answers are over the bound (`HTTPConnection.isBacklogFull`).
        var backlogFull = false
        /// Bytes read and not parsed yet, kept in the shell.
        var hasPendingInput = false
        /// The connection's timer is armed, for this instant (nil: not armed).
        var timerDue: Instant?
    }

    enum Flush: Equatable {
        case none
        /// Write what is queued now.
        case now
        /// Leave it to the end of the loop turn (`HTTPServer.flushAtEndOfTurn`).
        case atEndOfTurn
    }

    /// What the shell does after an event, in this order: take `consumed` bytes, queue
    /// `100 Continue`, encode the answer (`refusal`'s, or the one being given) in `answer`'s
    /// shape, keep the unparsed input, flush, shut down the write side, close, change the
    /// interest, arm the timer, and the rest.
    struct Actions {
        var consumed = 0
        var writeContinue = false
        /// A complete request for the handler.
        var request: HTTPRequestHead?
        var body: [UInt8] = []
        var refusal: Refusal?
        var answer: AnswerShape?
        var keepInput = false
        var flush = Flush.none
        var shutdownWrite = false
        var close = false
        /// The epoll event reads and handles requests, or drains a lingering close.
        var read = false
        var drain = false
        /// Set the interest and deadline again (a `settle` event).
        var settle = false
        var interest: Interest?
        var timer: Instant?
        /// Take up kept input on a later turn of the loop.
        var resume = false
        /// The server stops: the parked request gets its answer, the stream ends.
        var expireParked = false
        var endStream = false
    }

    enum Event {
        /// A turn of reading begins: its budget of requests.
        case readTurn
        /// Bytes to parse (read now, or kept from before); `stopping`: the server stops.
        case bytes(UnsafeRawBufferPointer, now: Instant, stopping: Bool)
        /// `bytes` stopped before their end: what is left is kept or dropped.
        case inputLeftOver
        /// The handler answered; `produced`: the body comes in pieces. `parked`: the answer
        /// of a parked or held request.
        case answer(produced: Bool, parked: Bool)
        /// The server refuses the connection's request (or the connection) itself.
        case refuse(Refusal)
        case park
        case hold
        case openStream
        case endStream
        /// An event of the stream was queued and flushed; `backlog` bytes are still unsent.
        case streamWritten(backlog: Int)
        /// The handling of what was read is over: when its answers leave.
        case readHandled(Outside)
        /// Output left (some bytes were taken by the transport).
        case wrote(now: Instant)
        /// Everything queued is out.
        case outputDrained(now: Instant)
        /// The client closed its side.
        case peerEnded(Outside)
        /// Bytes drained from a lingering close (0: the client closed).
        case lingerRead(Int)
        /// An epoll event came: `flush` is `.now` when it first writes what is queued.
        case ioArrived(IOEvents, hasOutput: Bool, any Transport)
        /// The epoll event, after the flush it asked for.
        case io(IOEvents, Outside, any Transport)
        /// Make the interest and the deadline match the state.
        case settle(Outside, any Transport, now: Instant)
        /// The interest was changed in the loop.
        case interestSet(Interest)
        case deadlineReached(now: Instant)
        /// The end-of-turn flush came: `flush` is `.now` when one was scheduled.
        case endOfTurn
        /// The end-of-turn flush is done: `settle` when the interest or deadline may be stale.
        case endOfTurnFlushed(Outside, any Transport)
        case shutdown(Outside, now: Instant)
        case close
    }

    /// The requests one connection handles per turn of the loop. Without a cap, one read of
    /// 64 KiB can hold 600 pipelined requests, all handled before any other connection is
    /// served; with it, a client that pipelines waits its turn like everyone else.
    static let requestsPerTurn = 16

    /// The reads of 64 KiB one connection makes per turn of the loop: 256 KiB. Eight clients
    /// that each sent a 1 MiB body, read whole in one turn with the body's scan, put a
    /// `GET /health` behind eight such slices (p50 15 to 20 ms here); in slices of 256 KiB it
    /// waits half that (`Tests/e2e/test_work_before_credential.py` prints it).
    static let readsPerTurn = 4

    let configuration: HTTPServerConfiguration
    private(set) var state: State = .reading
    private(set) var parser: HTTPRequestParser
    private(set) var head: HTTPRequestHead?
    private(set) var continuePending = false
    private(set) var keepAlive = true
    private(set) var requestVersion: HTTPVersion = .http11
    private(set) var isHeadRequest = false
    /// When the current request began (or the connection was accepted, or lingering began).
    private(set) var requestStart: Instant
    private(set) var bodyDeadline: BodyDeadline?
    private(set) var lastWriteProgress: Instant
    private(set) var lingered = 0
    /// Bytes came from the client at some time: false for a connection just accepted.
    private(set) var hasRead = false
    /// The server stops and this connection, accepted before it stopped, has sent nothing
    /// yet: it closes at this instant unless its first request comes by then.
    private(set) var firstRequestDue: Instant?
    /// The `.shutdown` event came: no answer keeps the connection.
    private(set) var serverStopping = false
    /// How long a stopping server waits for the first request of a connection it accepted: a
    /// client's request follows its connect within a round trip; a connection opened ahead of
    /// need (a browser's preconnect) must not hold a restart for the idle timeout.
    static let firstRequestGrace = TimeSpan.seconds(1)
    private(set) var requestsLeftInTurn = 0
    /// The answers queued by this turn's reading wait for the end of the turn; no writable
    /// interest is asked for them meanwhile.
    private(set) var flushScheduled = false
    /// The interest the loop has.
    private(set) var interest: Interest = .readable
    private(set) var deadline: Instant?
    private(set) var deadlineKind: DeadlineKind = .idle

    init(configuration: HTTPServerConfiguration, now: Instant) {
        self.configuration = configuration
        parser = HTTPRequestParser(limits: configuration.parserLimits)
        requestStart = now
        lastWriteProgress = now
    }

    /// Whether `bytes` may be parsed: reading, within the bound and the turn's budget.
    func takesRequests(backlogFull: Bool) -> Bool {
        state == .reading && !backlogFull && requestsLeftInTurn > 0
    }

    /// Nothing begun, nothing queued: a stopping server closes it at once.
    var isIdle: Bool { parser.isIdle && head == nil }

    mutating func handle(_ event: Event) -> Actions {
        var actions = Actions()
        switch event {
        case .readTurn:
            requestsLeftInTurn = Self.requestsPerTurn
        case .bytes(let bytes, let now, let stopping):
            parse(bytes, now: now, stopping: stopping, &actions)
        case .inputLeftOver:
            switch state {
            case .reading, .parked, .held, .streaming:
                actions.keepInput = true
            case .closingAfterWrite:
                // After the last answer the input is not kept, but it is drained before the
                // close, or the close resets.
                state = .closingAfterWrite(linger: true)
            case .handling, .lingering, .closed:
                break
            }
        case .answer(let produced, let parked):
            guard parked ? state == .parked || state == .held
                         : state == .handling || state == .parked || state == .held else { break }
            // HTTP/1.0 has no chunks: a produced body goes up to the close.
            if produced && requestVersion != .http11 { keepAlive = false }
            actions.answer = shape(produced: produced)
            state = keepAlive ? .reading : .closingAfterWrite(linger: false)
            if parked {
                // The answer leaves as soon as it is given: by then the turn's events are
                // handled (a held one), or it is a wait's, on a turn of its own.
                actions.flush = .now
                actions.settle = true
            }
        case .refuse(let refusal):
            refuse(refusal, &actions)
        case .park:
            state = .parked
        case .hold:
            state = .held
        case .openStream:
            state = .streaming
            // No Content-Length: the stream ends with the connection.
            keepAlive = false
            actions.answer = shape(produced: false)
        case .endStream:
            guard state == .streaming else { break }
            state = .closingAfterWrite(linger: false)
            actions.endStream = true
            actions.flush = .now
            actions.settle = true
        case .streamWritten(let backlog):
            // (Not streaming any more: the flush ended it, the event is not taken.) A reader
            // that lets more than the bound wait is cut off.
            guard state == .streaming else { break }
            if backlog > configuration.maxStreamBacklog {
                actions.close = true
            } else {
                actions.settle = true
            }
        case .readHandled(let outside):
            // The last answer of a connection that closes goes at once: no later request of
            // that client can share its wake-up. What has no bytes (a close) is done now.
            if case .closingAfterWrite = state {
                actions.flush = .now
            } else if !outside.hasOutput {
                actions.flush = .now
            } else if !flushScheduled {
                flushScheduled = true
                actions.flush = .atEndOfTurn
            }
        case .wrote(let now):
            lastWriteProgress = now
        case .outputDrained(let now):
            if case .closingAfterWrite(let linger) = state {
                if linger {
                    actions.shutdownWrite = true
                    state = .lingering
                    lingered = 0
                    requestStart = now
                } else {
                    actions.close = true
                }
            }
        case .peerEnded(let outside):
            // A request in progress can never complete.
            if outside.hasOutput {
                state = .closingAfterWrite(linger: false)
                actions.flush = .now
            } else {
                actions.close = true
            }
        case .lingerRead(let count):
            lingered += count
            if count == 0 || lingered > configuration.lingerMaxBytes { actions.close = true }
        case .ioArrived(let events, let hasOutput, let transport):
            if ConnectionWants.flushes(on: events, hasOutput: hasOutput, transportNeeds: transport.neededInterest) {
                actions.flush = .now
            }
        case .io(let events, let outside, let transport):
            switch ConnectionWants.step(on: events, in: state, hasPendingInput: outside.hasPendingInput,
                                        transportHasInput: transport.hasBufferedInput,
                                        transportNeeds: transport.neededInterest) {
            case .read: actions.read = true; actions.settle = true
            case .close: actions.close = true
            case .drain: actions.drain = true
            case .settle: actions.settle = true
            case .none: break
            }
        case .settle(let outside, let transport, let now):
            settle(outside, transport, now: now, &actions)
        case .interestSet(let interest):
            self.interest = interest
        case .deadlineReached(let now):
            guard let deadline, state != .closed else { break }
            if now < deadline {
                // Moved later since the timer was armed: armed again for then.
                actions.timer = deadline
                break
            }
            switch ConnectionWants.expiry(of: deadlineKind) {
            case .close:
                actions.close = true
            case .refuse(let reason):
                refuse(Refusal(status: 408, reason: reason), &actions)
                actions.flush = .now
                actions.settle = true
            }
        case .endOfTurn:
            guard flushScheduled else { break }
            flushScheduled = false
            if state != .closed { actions.flush = .now }
        case .endOfTurnFlushed(let outside, let transport):
            // When everything went out and the connection reads on, the interest and deadline
            // set when the turn handled it still hold (they did not count this output).
            // Output over the bound had turned reading off, and kept input needs its resume.
            guard state != .closed else { break }
            actions.settle = outside.hasOutput || state != .reading || interest != .readable || outside.hasPendingInput
                || !transport.neededInterest.isEmpty
        case .shutdown(let outside, let now):
            // Idle connections close now, a parked request gets its answer, a stream ends; a
            // request being read may still finish (and its answer closes). A connection that
            // has sent nothing yet was accepted for a request already on its way: it gets
            // `firstRequestGrace` for it, or the client sees its connection reset unanswered.
            keepAlive = false
            serverStopping = true
            switch state {
            case .reading:
                guard isIdle && !outside.hasOutput && !outside.hasPendingInput else { break }
                if hasRead {
                    actions.close = true
                } else {
                    firstRequestDue = now + Self.firstRequestGrace
                    actions.settle = true
                }
            case .parked, .held:
                actions.expireParked = true
            case .streaming:
                actions.endStream = true
            default:
                break
            }
        case .close:
            guard state != .closed else { break }
            state = .closed
            actions.close = true
        }
        return actions
    }

    private func shape(produced: Bool) -> AnswerShape {
        AnswerShape(keepAlive: keepAlive, version: requestVersion, omitsBody: isHeadRequest,
                    chunked: produced && requestVersion == .http11)
    }

    /// Answers and closes: after a framing error the rest of the input cannot be trusted.
    /// Unread input is drained for a while first, so the client reads the answer instead of
    /// a reset.
    private mutating func refuse(_ refusal: Refusal, _ actions: inout Actions) {
        keepAlive = false
        requestVersion = .http11
        isHeadRequest = false
        actions.refusal = refusal
        actions.answer = shape(produced: false)
        state = .closingAfterWrite(linger: true)
    }

    /// Parses until a request is complete (`request`, the handler's now), the bytes run out,
    /// or the request is refused.
    private mutating func parse(_ bytes: UnsafeRawBufferPointer, now: Instant, stopping: Bool, _ actions: inout Actions) {
        var offset = 0
        if bytes.count > 0 { hasRead = true }
        while true {
            // A request's time starts when the server reads its first byte, which for input
            // kept behind the bound is now, not when the socket gave it.
            if isIdle { requestStart = now }
            let readingBody = parser.isReadingBody
            let (event, consumed) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            actions.consumed = offset
            if readingBody && consumed > 0 {
                bodyDeadline?.record(consumed, at: now)
            }
            switch event {
            case .needMore:
                // The client waits for it before it sends the body: once, when the head's
                // bytes are used up and the body has not come with them.
                if continuePending {
                    continuePending = false
                    actions.writeContinue = true
                }
                return
            case .head(let newHead):
                head = newHead
                continuePending = newHead.expectsContinue
                bodyDeadline = BodyDeadline(start: now)
            case .end(let body):
                continuePending = false
                bodyDeadline = nil
                guard let head else { return }
                self.head = nil
                state = .handling
                requestsLeftInTurn -= 1
                keepAlive = head.keepAlive && !stopping && !serverStopping
                requestVersion = head.version
                isHeadRequest = head.method == .head
                actions.request = head
                actions.body = body
                return
            case .error(let error):
                refuse(Refusal(status: error.status, reason: error.reason), &actions)
                return
            }
        }
    }

    private mutating func settle(_ outside: Outside, _ transport: any Transport, now: Instant, _ actions: inout Actions) {
        if state == .reading, outside.hasPendingInput || transport.hasBufferedInput, !outside.backlogFull {
            actions.resume = true
        }
        guard state != .closed else { return }
        let readingBody = state == .reading && parser.isReadingBody
        let facts = ConnectionWants.Facts(
            state: state,
            // Output whose flush is scheduled for the end of this turn needs no writable event.
            pendingOutput: outside.hasOutput && !flushScheduled,
            backlogFull: outside.backlogFull, hasPendingInput: outside.hasPendingInput,
            interest: interest, transportNeeds: transport.neededInterest,
            transportEstablished: transport.isEstablished,
            requestBegun: !isIdle,
            bodyDue: readingBody ? bodyDeadline?.due(pause: configuration.bodyTimeout,
                                                     minimumRate: configuration.bodyMinimumRate) : nil,
            requestStart: requestStart, lastWriteProgress: lastWriteProgress,
            firstRequestDue: hasRead ? nil : firstRequestDue, now: now)
        guard let wanted = ConnectionWants.interest(facts) else { return }
        if wanted != interest { actions.interest = wanted }
        let (kind, due) = ConnectionWants.deadline(facts, configuration)
        deadline = due
        deadlineKind = kind
        guard let due else { return }
        // Moving a deadline later costs nothing: the timer fires at the old time and is
        // re-armed then. Only an earlier deadline touches the timer heap.
        if outside.timerDue.map({ $0 > due }) ?? true { actions.timer = due }
    }
}
