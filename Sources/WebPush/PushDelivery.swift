import EventLoop
import TLS
import Transports

/// One push request on a connection of its own, on the loop: the endpoint's host looked up
/// (off the loop), each address checked against `PushAddressRule` (a name can come to point at
/// this machine after the subscription was stored), TCP, TLS with the host's name (SNI and
/// verification), the request written, the answer's head read, the connection closed. Every
/// step is bounded by one `timeout`; the result comes once, on a later turn than `start`.
public final class PushDelivery: IOHandler {
    public enum Result: Sendable, Equatable {
        case answered(PushAnswer)
        /// No answer: the name did not resolve, no address took the connection, TLS failed,
        /// the connection broke or the time ran out. Worth trying again.
        case failed(String)
        /// Every address of the host is one a push may not go to: not tried again.
        case blocked(String)
    }

    private enum State { case idle, dialing, writing, reading, done }

    private let request: PushRequest
    private let bytes: [UInt8]
    private let loop: EventLoop
    private let tls: TLSClientContext
    private let allowsPrivateHosts: Bool
    private let timeout: TimeSpan
    private var completion: ((Result) -> Void)?

    private var state = State.idle
    private var dialer: TransportDialer?
    private var registration: IORegistration?
    private var transport: (any Transport)?
    private var interest: Interest = []
    private var written = 0
    private var answer: [UInt8] = []
    private var timer: LoopTimer?

    public init(_ request: PushRequest, authorization: String, loop: EventLoop, tls: TLSClientContext,
                allowsPrivateHosts: Bool, timeout: TimeSpan = .seconds(30), completion: @escaping (Result) -> Void) {
        self.request = request
        bytes = request.bytes(authorization: authorization)
        self.loop = loop
        self.tls = tls
        self.allowsPrivateHosts = allowsPrivateHosts
        self.timeout = timeout
        self.completion = completion
    }

    /// Begins; the delivery keeps itself alive until its result is given.
    public func start() {
        guard state == .idle else { return }
        state = .dialing
        let retained = self
        timer = loop.schedule(after: timeout) { [weak self] in
            self?.finish(.failed("no answer from \(retained.request.endpoint.authority) within \(retained.timeout.milliseconds) ms"))
        }
        let endpoint = request.endpoint
        let allowsPrivateHosts = allowsPrivateHosts
        let admits: (IPAddress) -> Bool = { allowsPrivateHosts || PushAddressRule.isPublic($0) }
        let dialer = TransportDialer(
            host: endpoint.host, port: endpoint.port, label: endpoint.authority, tls: tls, loop: loop, admits: admits
        ) { [self] result in
            switch result {
            case .success(let transport):
                established(transport)
            case .failure(.refusedAddresses):
                finish(.blocked("\(endpoint.host) is an address of this machine or its network"))
            case .failure(let failure):
                finish(.failed(failure.description))
            }
        }
        self.dialer = dialer
        dialer.start()
    }

    private func established(_ transport: any Transport) {
        self.transport = transport
        do {
            registration = try loop.register(fd: transport.fd, interest: .writable, handler: self)
            interest = .writable
        } catch {
            finish(.failed("epoll: \(error)"))
            return
        }
        state = .writing
        write()
    }

    public func handleIO(_ events: IOEvents) {
        switch state {
        case .writing: write()
        case .reading: read()
        case .idle, .dialing, .done: break
        }
    }

    private func write() {
        guard let transport else { return }
        while written < bytes.count {
            let count: Int?
            do {
                count = try transport.write([bytes][...], skipping: written)
            } catch {
                finish(.failed("writing to \(request.endpoint.authority): \(error)"))
                return
            }
            guard let count else {
                setInterest(Interest.writable.union(transport.neededInterest))
                return
            }
            written += count
        }
        state = .reading
        setInterest(Interest.readable.union(transport.neededInterest))
        read()
    }

    private func read() {
        guard let transport else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while state == .reading {
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { try transport.read(into: $0) }
            } catch {
                finish(.failed("reading from \(request.endpoint.authority): \(error)"))
                return
            }
            guard let count else {
                setInterest(Interest.readable.union(transport.neededInterest))
                return
            }
            if count == 0 {
                finish(.failed("\(request.endpoint.authority) closed the connection without an answer"))
                return
            }
            answer += buffer[0..<count]
            do throws(PushAnswer.Malformed) {
                if let head = try PushAnswer.parse(answer, nowUnixSeconds: loop.clock.wallMillis / 1000) {
                    finish(.answered(head))
                    return
                }
            } catch {
                finish(.failed("\(request.endpoint.authority) answered \(error.reason)"))
                return
            }
        }
    }

    private func setInterest(_ wanted: Interest) {
        guard let registration, wanted != interest else { return }
        do {
            try loop.modify(registration, interest: wanted)
            interest = wanted
        } catch {
            finish(.failed("epoll: \(error)"))
        }
    }

    private func dropSocket() {
        dialer?.cancel()
        dialer = nil
        if let registration { loop.unregister(registration) }
        registration = nil
        interest = []
        transport?.close()
        transport = nil
    }

    private func finish(_ result: Result) {
        guard state != .done, let completion else { return }
        state = .done
        self.completion = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        dropSocket()
        completion(result)
    }
}
