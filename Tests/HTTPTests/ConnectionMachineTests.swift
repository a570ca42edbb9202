import EventLoop
import Transports
@testable import HTTP
import Testing

/// A `ConnectionMachine` and the facts its shell would give it, moved by hand: no socket,
/// no loop, no clock but `now`. The transport is asked only for its facts (none here).
struct MachineDriver {
    var machine: ConnectionMachine
    var now = Instant(nanoseconds: 1_000_000_000)
    var outside = ConnectionMachine.Outside()
    let transport = MemoryTransport()

    init(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) {
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        machine = ConnectionMachine(configuration: configuration, now: now)
    }

    var state: ConnectionMachine.State { machine.state }

    mutating func handle(_ event: ConnectionMachine.Event) -> ConnectionMachine.Actions {
        machine.handle(event)
    }

    /// The client's bytes, parsed from the start until they say something.
    mutating func feed(_ text: String) -> ConnectionMachine.Actions {
        let bytes = Array(text.utf8)
        let now = self.now
        return bytes.withUnsafeBytes { machine.handle(.bytes($0, now: now, stopping: false)) }
    }

    mutating func settle() -> ConnectionMachine.Actions {
        let actions = machine.handle(.settle(outside, transport, now: now))
        if let wanted = actions.interest { _ = machine.handle(.interestSet(wanted)) }
        outside.timerDue = actions.timer ?? outside.timerDue
        return actions
    }

    /// The timer fires at its deadline.
    mutating func fire() -> ConnectionMachine.Actions {
        now = outside.timerDue ?? now
        outside.timerDue = nil
        let actions = machine.handle(.deadlineReached(now: now))
        if let due = actions.timer { outside.timerDue = due }
        return actions
    }

    /// A plain answer to the request being handled, queued by the shell.
    mutating func answer(produced: Bool = false) -> ConnectionMachine.AnswerShape? {
        let shape = machine.handle(.answer(produced: produced, parked: false)).answer
        if shape != nil { outside.hasOutput = true }
        return shape
    }

    /// Everything queued went out.
    mutating func drained() -> ConnectionMachine.Actions {
        outside.hasOutput = false
        _ = machine.handle(.wrote(now: now))
        return machine.handle(.outputDrained(now: now))
    }
}

@Suite struct ConnectionMachineTests {
    static let get = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n"

    @Test func aKeptAliveConnectionWaitsForTheNextRequestUntilItsIdleDeadlineThenCloses() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        let read = driver.feed(Self.get)
        #expect(read.request?.target == "/a" && read.consumed == Self.get.utf8.count)
        #expect(driver.state == .handling)
        #expect(driver.answer()?.keepAlive == true)
        #expect(driver.state == .reading)
        #expect(driver.handle(.readHandled(driver.outside)).flush == .atEndOfTurn)
        #expect(driver.handle(.endOfTurn).flush == .now)
        #expect(!driver.drained().close)
        #expect(!driver.handle(.endOfTurnFlushed(driver.outside, driver.transport)).settle)
        let settled = driver.settle()
        #expect(settled.timer == driver.now + driver.machine.configuration.idleTimeout)
        #expect(driver.machine.deadlineKind == .idle && settled.interest == nil)
        let expired = driver.fire()
        #expect(expired.close && expired.refusal == nil)
    }

    @Test func aDeadlineMovedLaterIsArmedAgainInsteadOfActingEarly() {
        var driver = MachineDriver()
        _ = driver.settle()
        let first = driver.outside.timerDue
        driver.now = driver.now + .seconds(5)
        // A settle with a later deadline leaves the timer as it is.
        #expect(driver.settle().timer == nil)
        let early = driver.fire()
        #expect(!early.close && early.timer == first.map { $0 + .seconds(5) })
        #expect(driver.fire().close)
    }

    @Test func aBodyTricklingInHitsItsBodyDeadlineIsAnswered408ThenLingersAndCloses() {
        var driver = MachineDriver { $0.bodyTimeout = .seconds(10); $0.bodyMinimumRate = 1024 }
        _ = driver.handle(.readTurn)
        let head = driver.feed("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        #expect(head.request == nil && !head.writeContinue)
        let start = driver.now
        _ = driver.settle()
        #expect(driver.machine.deadlineKind == .body && driver.outside.timerDue == start + .seconds(10))
        for _ in 0..<2 {
            driver.now = driver.now + .seconds(4)
            #expect(driver.feed("x").request == nil)
            _ = driver.settle()
        }
        // Cut one body timeout after the head (2 bytes earned 2/1024 s), not 10 s after the
        // last byte. (The timer armed for the first deadline comes first and is armed again.)
        var cut = driver.fire()
        while cut.timer != nil { cut = driver.fire() }
        #expect(driver.now == start + .seconds(10) + TimeSpan(nanoseconds: 2 * 1_000_000_000 / 1024))
        #expect(cut.refusal == ConnectionMachine.Refusal(status: 408, reason: "body too slow"))
        #expect(cut.answer?.keepAlive == false && cut.flush == .now && !cut.close)
        #expect(driver.state == .closingAfterWrite(linger: true))
        let drained = driver.drained()
        #expect(drained.shutdownWrite && !drained.close && driver.state == .lingering)
        _ = driver.settle()
        #expect(driver.machine.deadlineKind == .linger)
        #expect(driver.fire().close)
    }

    @Test func aClientThatNeverReadsIsClosedByTheWriteDeadline() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        _ = driver.feed(Self.get)
        _ = driver.answer()
        _ = driver.handle(.readHandled(driver.outside))
        #expect(driver.handle(.endOfTurn).flush == .now)
        // The socket took nothing: the answer still waits, so the interest and deadline change.
        #expect(driver.handle(.endOfTurnFlushed(driver.outside, driver.transport)).settle)
        let settled = driver.settle()
        let config = driver.machine.configuration
        #expect(settled.interest == [.readable, .writable])
        #expect(driver.machine.deadlineKind == .write && settled.timer == Instant(nanoseconds: 1_000_000_000) + config.writeTimeout)
        // Progress moves the deadline; none for a write timeout closes without a word.
        driver.now = driver.now + .seconds(20)
        _ = driver.handle(.wrote(now: driver.now))
        _ = driver.settle()
        #expect(driver.machine.deadline == driver.now + config.writeTimeout)
        #expect(!driver.fire().close)
        let closed = driver.fire()
        #expect(closed.close && closed.refusal == nil)
    }

    @Test func pipelinedRequestsAreHandedOutOneAtATimeInOrderSixteenPerTurn() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        let text = "GET /1 HTTP/1.1\r\nHost: t\r\n\r\nGET /2 HTTP/1.1\r\nHost: t\r\n\r\n"
        let bytes = Array(text.utf8)
        var seen: [String] = []
        var offset = 0
        while driver.machine.takesRequests(backlogFull: false) && offset < bytes.count {
            let now = driver.now
            let actions = bytes.withUnsafeBytes {
                driver.machine.handle(.bytes(UnsafeRawBufferPointer(rebasing: $0[offset...]), now: now, stopping: false))
            }
            offset += actions.consumed
            guard let head = actions.request else { break }
            seen.append(head.target)
            // The second is not handed out while the first is being handled.
            #expect(!driver.machine.takesRequests(backlogFull: false))
            _ = driver.answer()
        }
        #expect(seen == ["/1", "/2"] && offset == bytes.count)
        _ = driver.handle(.readTurn)
        for _ in 0..<ConnectionMachine.requestsPerTurn {
            #expect(driver.feed(Self.get).request != nil)
            _ = driver.answer()
        }
        #expect(!driver.machine.takesRequests(backlogFull: false))
        _ = driver.handle(.readTurn)
        #expect(driver.machine.takesRequests(backlogFull: false) && !driver.machine.takesRequests(backlogFull: true))
    }

    @Test func anAnswerHeldToTheEndOfTheTurnReadsNothingMeanwhileAndLeavesWhenGiven() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        _ = driver.feed(Self.get)
        _ = driver.handle(.hold)
        #expect(driver.state == .held)
        #expect(driver.handle(.readHandled(driver.outside)).flush == .now)
        // Not a wait: the interest stays, and input that comes meanwhile waits unread.
        #expect(driver.settle().interest == nil && driver.machine.interest == .readable)
        let meanwhile = driver.handle(.io(.readable, driver.outside, driver.transport))
        #expect(!meanwhile.read && meanwhile.settle)
        // A plain answer is not taken while the machine holds; the held one's is, and leaves now.
        let given = driver.handle(.answer(produced: false, parked: true))
        #expect(given.answer?.keepAlive == true && given.flush == .now && given.settle)
        #expect(driver.state == .reading)
        #expect(driver.handle(.answer(produced: false, parked: true)).answer == nil)
    }

    @Test func connectionCloseLingersOverUnreadInputThenCloses() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        let read = driver.feed("GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n")
        #expect(read.request?.target == "/a")
        #expect(driver.answer()?.keepAlive == false)
        #expect(driver.state == .closingAfterWrite(linger: false))
        // The input behind the last answer is not kept, but drained before the close.
        #expect(!driver.handle(.inputLeftOver).keepInput)
        #expect(driver.state == .closingAfterWrite(linger: true))
        #expect(driver.handle(.readHandled(driver.outside)).flush == .now)
        #expect(driver.drained().shutdownWrite && driver.state == .lingering)
        #expect(driver.handle(.io(.readable, driver.outside, driver.transport)).drain)
        #expect(!driver.handle(.lingerRead(100)).close)
        #expect(driver.handle(.lingerRead(0)).close)
        #expect(driver.handle(.close).close && driver.state == .closed)
        #expect(!driver.handle(.close).close)
    }

    @Test func withoutLeftoverInputTheLastAnswerClosesWithoutLingering() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        _ = driver.feed("GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        _ = driver.answer()
        let drained = driver.drained()
        #expect(drained.close && !drained.shutdownWrite)
    }

    @Test func aHeadRequestsAnswerHasNoBodyAndTheNextRequestsHasOne() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        _ = driver.feed("HEAD /a HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(driver.answer(produced: true)?.omitsBody == true)
        _ = driver.feed(Self.get)
        #expect(driver.answer()?.omitsBody == false)
    }

    @Test func aProducedBodyIsChunkedForHTTP11AndEndsTheConnectionForHTTP10() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        _ = driver.feed(Self.get)
        let chunked = driver.answer(produced: true)
        #expect(chunked?.chunked == true && chunked?.keepAlive == true)
        _ = driver.feed("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let closing = driver.answer(produced: true)
        #expect(closing?.chunked == false && closing?.keepAlive == false && closing?.version == .http10)
        #expect(driver.state == .closingAfterWrite(linger: false))
    }

    @Test func oneHundredContinueIsWrittenOnceWhenTheBodyHasNotComeWithTheHead() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        let head = driver.feed("POST /a HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(head.writeContinue && head.request == nil)
        #expect(!driver.feed("ab").writeContinue)
        let end = driver.feed("cde")
        #expect(!end.writeContinue && end.body == Array("abcde".utf8))
        _ = driver.answer()
        // The body came with the head: the client is not told to go on.
        let whole = driver.feed("POST /a HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nab")
        #expect(!whole.writeContinue && whole.request != nil)
    }

    @Test func aFramingErrorIsRefusedAndTheConnectionLingers() {
        var driver = MachineDriver()
        _ = driver.handle(.readTurn)
        let refused = driver.feed("HEAD /a HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n")
        #expect(refused.refusal?.status == 400 && refused.request == nil)
        // A refusal is written in full whatever was asked.
        #expect(refused.answer == ConnectionMachine.AnswerShape(keepAlive: false, version: .http11, omitsBody: false,
                                                                  chunked: false))
        #expect(driver.state == .closingAfterWrite(linger: true))
    }

    @Test func aStoppingServerClosesAnIdleConnectionAndExpiresAParkedRequest() {
        var idle = MachineDriver()
        _ = idle.handle(.readTurn)
        _ = idle.feed(Self.get)
        _ = idle.answer()
        _ = idle.drained()
        #expect(idle.state == .reading)
        #expect(idle.handle(.shutdown(idle.outside, now: idle.now)).close, "it served a request and waits for none")
        var parked = MachineDriver()
        _ = parked.handle(.readTurn)
        _ = parked.feed(Self.get)
        _ = parked.handle(.park)
        let stop = parked.handle(.shutdown(parked.outside, now: parked.now))
        #expect(stop.expireParked && !stop.close)
        #expect(parked.handle(.answer(produced: false, parked: true)).answer?.keepAlive == false)
        var reading = MachineDriver()
        _ = reading.feed("GET /a HTTP/1.1\r\n")
        #expect(!reading.handle(.shutdown(reading.outside, now: reading.now)).close)
    }

    @Test func aConnectionAcceptedBeforeTheStopGetsItsFirstRequestAnsweredThenCloses() {
        var fresh = MachineDriver()
        let stop = fresh.handle(.shutdown(fresh.outside, now: fresh.now))
        #expect(!stop.close, "its request may be on its way")
        _ = fresh.settle()
        #expect(fresh.outside.timerDue == fresh.now + ConnectionMachine.firstRequestGrace)
        _ = fresh.handle(.readTurn)
        let request = fresh.feed(Self.get)
        #expect(request.request != nil)
        #expect(fresh.answer()?.keepAlive == false, "the stopping server's answer closes")
        #expect(fresh.drained().close)
    }

    @Test func aConnectionThatSendsNothingClosesAtTheEndOfTheGrace() {
        var fresh = MachineDriver()
        _ = fresh.handle(.shutdown(fresh.outside, now: fresh.now))
        _ = fresh.settle()
        let due = fresh.outside.timerDue
        #expect(due == fresh.now + ConnectionMachine.firstRequestGrace)
        #expect(fresh.fire().close)
    }

    @Test func anEpollEventWritesWhatIsQueuedOnlyWhenItCanGoOut() {
        var driver = MachineDriver()
        let transport = driver.transport
        #expect(driver.handle(.ioArrived(.writable, hasOutput: true, transport)).flush == .now)
        #expect(driver.handle(.ioArrived(.hangup, hasOutput: true, transport)).flush == .now)
        #expect(driver.handle(.ioArrived(.readable, hasOutput: true, transport)).flush == .none)
        #expect(driver.handle(.ioArrived(.writable, hasOutput: false, transport)).flush == .none)
    }

    @Test func anEventStreamWhoseReaderFallsBehindTheBoundIsCutOff() {
        var driver = MachineDriver { $0.maxStreamBacklog = 1000 }
        _ = driver.handle(.readTurn)
        _ = driver.feed(Self.get)
        #expect(driver.handle(.openStream).answer?.keepAlive == false)
        let within = driver.handle(.streamWritten(backlog: 1000))
        #expect(within.settle && !within.close)
        let over = driver.handle(.streamWritten(backlog: 1001))
        #expect(over.close && !over.settle)
        // Once ended, a write is not taken, and nothing is done.
        #expect(driver.handle(.endStream).endStream && driver.state == .closingAfterWrite(linger: false))
        let late = driver.handle(.streamWritten(backlog: 0))
        #expect(!late.settle && !late.close)
    }
}
