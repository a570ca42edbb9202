import EventLoop
import TLS
import Transports

/// One request on a connection of its own, on the loop: the host looked up off the loop, each
/// address checked by the client's `admits` rule, TCP, TLS with the host's name (SNI and
/// verification) for `https:`, the request written, the answer read by `ResponseDecoder`
/// within the request's limits, the connection closed. One deadline bounds all of it. The
/// result comes once, on a later turn than the start; the fetch keeps itself alive until then
/// (the loop holds its timer), and `cancel` ends it with no result.
public final class HTTPFetch: IOHandler {
    public typealias Completion = (Result<HTTPClientResponse, HTTPClientFailure>) -> Void

    private enum State { case idle, dialing, writing, reading, done }

    /// Reads of the socket per readiness event: a fast peer cannot hold the loop, and epoll
    /// (level-triggered) reports what is left on the next turn.
    private static let readsPerEvent = 8

    private let client: HTTPClient
    private let request: HTTPClientRequest
    private let limits: HTTPClientLimits
    private let deadline: Instant
    private var completion: Completion?

    private var state = State.idle
    private var dialer: TransportDialer?
    private var registration: IORegistration?
    private var transport: (any Transport)?
    private var interest: Interest = []
    private var outgoing: [UInt8] = []
    private var written = 0
    private var decoder: ResponseDecoder
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    private var timer: LoopTimer?

    init(client: HTTPClient, request: HTTPClientRequest, limits: HTTPClientLimits, deadline: Instant,
         completion: @escaping Completion) {
        self.client = client
        self.request = request
        self.limits = limits
        self.deadline = deadline
        self.completion = completion
        decoder = ResponseDecoder(limits: limits, isHEAD: request.isHEAD, readsBody: request.readsAnswerBody)
    }

    private var loop: EventLoop { client.loop }
    private var authority: String { request.url.authority }

    func start() {
        guard state == .idle else { return }
        state = .dialing
        if request.url.scheme == .http && !client.allowsPlainHTTP {
            return finishSoon(.invalidRequest("\(request.url.origin) is plain http:, which this client does not fetch"))
        }
        switch request.bytes() {
        case .success(let bytes): outgoing = bytes
        case .failure(let failure): return finishSoon(failure)
        }
        timer = loop.schedule(at: deadline) { [self] in
            finish(.failure(.timeout("no answer from \(authority) within \(limits.timeout.milliseconds) ms")))
        }
        let url = request.url
        let dialer = TransportDialer(host: url.host, port: url.port, label: authority, tls: url.scheme == .https ? client.tls : nil,
                                     loop: loop, admits: client.admits) { [self] result in
            self.dialer = nil
            switch result {
            case .success(let transport): established(transport)
            case .failure(let failure): finish(.failure(Self.failure(for: failure)))
            }
        }
        self.dialer = dialer
        dialer.start()
    }

    /// Ends the request: whatever is open is closed and no result comes.
    public func cancel() {
        guard state != .done else { return }
        state = .done
        completion = nil
        stopTimer()
        drop()
    }

    public func handleIO(_ events: IOEvents) {
        switch state {
        case .writing: write()
        case .reading: read()
        case .idle, .dialing, .done: break
        }
    }

    private func established(_ transport: any Transport) {
        self.transport = transport
        if let agreed = transport.applicationProtocol, agreed != "http/1.1" {
            return finish(.failure(.tls("TLS with \(authority) agreed on \(agreed), not http/1.1")))
        }
        do {
            registration = try loop.register(fd: transport.fd, interest: .writable, handler: self)
            interest = .writable
        } catch {
            return finish(.failure(.connectionBroken("epoll: \(error)")))
        }
        state = .writing
        write()
    }

    private func write() {
        guard let transport else { return }
        while written < outgoing.count {
            let count: Int?
            do {
                count = try transport.write([outgoing][...], skipping: written)
            } catch {
                return finish(.failure(.connectionBroken("writing to \(authority): \(error)")))
            }
            guard let count else { return watch(Interest.writable.union(transport.neededInterest)) }
            written += count
        }
        outgoing = []
        state = .reading
        watch(Interest.readable.union(transport.neededInterest))
        read()
    }

    private func read() {
        guard let transport else { return }
        var reads = 0
        // Past the socket reads of one event, only what TLS already decrypted is taken:
        // epoll cannot report it, the socket's own bytes it reports again.
        while state == .reading && (reads < Self.readsPerEvent || transport.hasBufferedInput) {
            reads += 1
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { try transport.read(into: $0) }
            } catch {
                return finish(.failure(.connectionBroken("reading from \(authority): \(error)")))
            }
            guard let count else { return watch(Interest.readable.union(transport.neededInterest)) }
            do throws(AnswerProblem) {
                if count == 0 {
                    try decoder.end()
                    return answered()
                }
                if try decoder.take(buffer[0..<count]) { return answered() }
            } catch {
                return finish(.failure(failure(for: error)))
            }
        }
    }

    private func answered() {
        guard let head = decoder.head else { return }
        finish(.success(HTTPClientResponse(url: request.url, version: head.version, status: head.status, reason: head.reason,
                                           headers: head.headers, body: decoder.body)))
    }

    private func watch(_ wanted: Interest) {
        guard let registration, wanted != interest else { return }
        do {
            try loop.modify(registration, interest: wanted)
            interest = wanted
        } catch {
            finish(.failure(.connectionBroken("epoll: \(error)")))
        }
    }

    private func finishSoon(_ failure: HTTPClientFailure) {
        loop.runSoon { [self] in finish(.failure(failure)) }
    }

    private func finish(_ result: Result<HTTPClientResponse, HTTPClientFailure>) {
        guard state != .done, let completion else { return }
        state = .done
        self.completion = nil
        stopTimer()
        drop()
        // The caller may let go of the fetch in its completion: it stays until this returns.
        withExtendedLifetime(self) { completion(result) }
    }

    private func stopTimer() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func drop() {
        dialer?.cancel()
        dialer = nil
        if let registration { loop.unregister(registration) }
        registration = nil
        interest = []
        transport?.close()
        transport = nil
    }

    // MARK: Failures, mapped here once

    private static func failure(for dial: TransportDialer.Failure) -> HTTPClientFailure {
        switch dial {
        case .lookup(let words): .lookupFailed(words)
        case .noSuchName(let words): .noSuchName(words)
        case .refusedAddresses(let words): .blockedAddress(words)
        case .connect(let words): .connect(words)
        case .tls(let words): .tls(words)
        }
    }

    private func failure(for problem: AnswerProblem) -> HTTPClientFailure {
        let words = "\(authority) \(problem.words)"
        switch problem.kind {
        case .tooLarge: return .tooLarge(words)
        case .malformed: return .malformedAnswer(words)
        case .truncated: return .connectionBroken(words)
        }
    }
}
