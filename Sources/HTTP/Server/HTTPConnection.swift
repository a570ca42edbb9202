import EventLoop
import Logging
import Transports

/// One client connection: reads requests, hands them to the handler in order, writes the
/// answers. Requests are answered one at a time: while one is parked or streaming, or while
/// the unsent answers are over `maxResponseBacklog`, later pipelined bytes wait (in
/// `pendingInput`, then unread in the socket). Runs on the loop thread; the loop keeps it
/// alive while it is registered. Its bytes go through a `Transport` (the socket, or TLS over
/// it). It is the shell of a `ConnectionMachine`, which makes every decision: the shell hands
/// it each event and performs the actions it returns. The class is split by concern: reading
/// and dispatch (`+Reading`), answers, parked requests and streams (`+Answers`), writing,
/// interest and deadlines (`+Timing`).
final class HTTPConnection: IOHandler, RequestAnswering {
    typealias State = ConnectionMachine.State
    typealias DeadlineKind = ConnectionWants.DeadlineKind

    unowned let server: HTTPServer
    let transport: any Transport
    let peer: PeerAddress
    var registration: IORegistration?
    /// Position in the server's list, for O(1) removal.
    var serverIndex = -1
    /// Every decision: the state, the parser, keep-alive, deadlines, the turn's budget.
    var machine: ConnectionMachine

    /// Bytes read but not parsed yet, kept while a request is parked or streaming or the
    /// answers are over the bound; `pendingStart` of them are already parsed.
    var pendingInput: [UInt8] = []
    var pendingStart = 0
    var output = OutputQueue()
    /// The body of the answer being sent that is still to be made (`HTTPBodyProducer`), and
    /// whether its pieces go as chunks.
    var producer: (any HTTPBodyProducer)?
    var producerChunked = false
    var timer: LoopTimer!
    var parked: ParkedRequest?
    var stream: EventStream?
    /// Takes up kept input on a later turn; made when first needed.
    var resumeTimer: LoopTimer?

    /// The requests one connection handles per turn of the loop (`ConnectionMachine`).
    static let requestsPerTurn = ConnectionMachine.requestsPerTurn

    var state: State { machine.state }
    var interest: Interest { machine.interest }

    init(server: HTTPServer, transport: any Transport, peer: PeerAddress) {
        self.server = server
        self.transport = transport
        self.peer = peer
        machine = ConnectionMachine(configuration: server.configuration, now: server.loop.now)
        timer = server.loop.makeTimer { [unowned self] in self.timerFired() }
    }

    /// What the machine cannot know: the queued output, the kept input, the timer.
    var outside: ConnectionMachine.Outside {
        ConnectionMachine.Outside(hasOutput: !output.isEmpty || producer != nil, backlogFull: isBacklogFull,
                                  hasPendingInput: !pendingInput.isEmpty,
                                  timerDue: timer.isScheduled ? timer.deadline : nil)
    }

    // MARK: Events

    /// An epoll event: the flush it asks for, then its step (the machine decides both).
    func handleIO(_ events: IOEvents) {
        if machine.handle(.ioArrived(events, hasOutput: !output.isEmpty || producer != nil, transport)).flush == .now {
            flush()
        }
        let actions = machine.handle(.io(events, outside, transport))
        if actions.close {
            close()
        } else if actions.drain {
            drainLinger()
        } else {
            if actions.read { readAndProcess() }
            if actions.settle { settle() }
        }
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

    /// The server stops: idle connections close now (one that has sent nothing yet waits a
    /// moment for its request), a parked request gets its answer, a stream ends; a request
    /// being read may still finish (and its answer closes).
    func beginShutdown() {
        let actions = machine.handle(.shutdown(outside, now: server.loop.now))
        if actions.close { close() }
        if actions.expireParked { parked?.expire() }
        if actions.endStream { endStream() }
    }

    func close() {
        guard machine.handle(.close).close else { return }
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
