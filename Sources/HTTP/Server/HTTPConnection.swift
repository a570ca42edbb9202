import EventLoop
import Logging
import Transports

/// One client connection: reads requests, hands them to the handler in order, writes the
/// answers. Requests are answered one at a time: while one is parked or streaming, or while
/// the unsent answers are over `maxResponseBacklog`, later pipelined bytes wait (in
/// `pendingInput`, then unread in the socket). Runs on the loop thread; the loop keeps it
/// alive while it is registered. Its bytes go through a `Transport` (the socket, or TLS over
/// it). The class is split by concern: reading and dispatch (`+Reading`), answers, parked
/// requests and streams (`+Answers`), writing, interest and deadlines (`+Timing`).
final class HTTPConnection: IOHandler, RequestAnswering {
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

    unowned let server: HTTPServer
    let transport: any Transport
    let peer: PeerAddress
    var registration: IORegistration?
    /// Position in the server's list, for O(1) removal.
    var serverIndex = -1
    var state: State = .reading

    var parser: HTTPRequestParser
    var head: HTTPRequestHead?
    var continuePending = false
    /// Bytes read but not parsed yet, kept while a request is parked or streaming or the
    /// answers are over the bound; `pendingStart` of them are already parsed.
    var pendingInput: [UInt8] = []
    var pendingStart = 0
    var output = OutputQueue()
    /// The body of the answer being sent that is still to be made (`HTTPBodyProducer`), and
    /// whether its pieces go as chunks.
    var producer: (any HTTPBodyProducer)?
    var producerChunked = false
    var interest: Interest = .readable
    var timer: LoopTimer!
    var deadline: Instant?
    var deadlineKind: DeadlineKind = .idle
    var requestStart: Instant
    var bodyDeadline: BodyDeadline?
    var lastWriteProgress: Instant
    var lingered = 0
    var keepAlive = true
    var requestVersion: HTTPVersion = .http11
    var isHeadRequest = false
    var parked: ParkedRequest?
    var stream: EventStream?
    /// Takes up kept input on a later turn; made when first needed.
    var resumeTimer: LoopTimer?
    var requestsLeftInTurn = 0
    /// The answers queued by this turn's reading wait for the end of the turn (`HTTPServer.
    /// flushAtEndOfTurn`); no writable interest is asked for them meanwhile.
    var flushScheduled = false

    /// The requests one connection handles per turn of the loop. Without a cap, one read of
    /// 64 KiB can hold 600 pipelined requests, all handled before any other connection is
    /// served; with it, a client that pipelines waits its turn like everyone else.
    static let requestsPerTurn = 16

    init(server: HTTPServer, transport: any Transport, peer: PeerAddress) {
        self.server = server
        self.transport = transport
        self.peer = peer
        parser = HTTPRequestParser(limits: server.configuration.parserLimits)
        requestStart = server.loop.now
        lastWriteProgress = server.loop.now
        timer = server.loop.makeTimer { [unowned self] in self.timerFired() }
    }

    // MARK: Events

    /// An epoll event: the flush it asks for, then its step (`ConnectionWants`).
    func handleIO(_ events: IOEvents) {
        if ConnectionWants.flushes(on: events, hasOutput: !output.isEmpty || producer != nil,
                                   transportNeeds: transport.neededInterest) {
            flush()
        }
        switch ConnectionWants.step(on: events, in: state, hasPendingInput: !pendingInput.isEmpty,
                                    transportHasInput: transport.hasBufferedInput, transportNeeds: transport.neededInterest) {
        case .read:
            readAndProcess()
        case .close:
            close()
            return
        case .drain:
            drainLinger()
            return
        case .settle:
            break
        case .none:
            return
        }
        settle()
    }

    var loop: EventLoop { server.loop }

    func refusal(status: Int, reason: String) -> HTTPResponse {
        server.handler.refusal(status: status, reason: reason)
    }

    /// Answer bytes not sent yet (for tests of the bound).
    var queuedOutputBytes: Int { output.count }

    /// Over this, no more requests are handled and the socket is not read until the client
    /// reads: a client that sends without reading then fills its own socket buffers, not the
    /// server's memory. One answer may overshoot it (it is queued whole, by reference).
    /// A produced body still being made counts as full: the next answer waits for its end.
    var isBacklogFull: Bool { output.count > server.configuration.maxResponseBacklog || producer != nil }

    /// Queued bytes under this ask for the next piece of a produced body.
    static let producerLowWater = 64 * 1024
    /// Bytes of pieces made per flush at most (a piece is never split): a client that reads
    /// as fast as they are made gets the rest on later turns (the writable event comes at
    /// once), after the other connections.
    static let producedPerFlush = 64 * 1024

    // MARK: Shutdown and close

    /// The server stops: idle connections close now, a parked request gets its answer, a
    /// stream ends; a request being read may still finish (and its answer closes).
    func beginShutdown() {
        keepAlive = false
        switch state {
        case .reading:
            if parser.isIdle && head == nil && output.isEmpty && producer == nil && pendingInput.isEmpty {
                close()
            }
        case .parked, .held:
            parked?.expire()
        case .streaming:
            endStream()
        default:
            break
        }
    }

    func close() {
        guard state != .closed else { return }
        state = .closed
        server.loop.cancel(timer)
        if let resumeTimer { server.loop.cancel(resumeTimer) }
        if let registration {
            server.loop.unregister(registration)
            self.registration = nil
        }
        transport.close()
        output.removeAll()
        producer = nil
        pendingInput = []
        let parked = self.parked
        let stream = self.stream
        self.parked = nil
        self.stream = nil
        parked?.cancel()
        stream?.closed()
        server.connectionClosed(self)
    }
}
