#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import TLS

/// The client side of setting a transport up, for every client (APNs, the HTTP client, the
/// PostgreSQL client): the host looked up off the loop (`HostLookup`), a non-blocking TCP
/// connect to each address in turn (those `admits` lets through), then TLS with the host's
/// name (SNI and verification) when a context is given, the plain socket otherwise. The
/// established transport is handed over once: the dialer holds the socket's registration until
/// then and releases it before `completion`, so the caller registers the transport as its own.
/// Bounding the time is the caller's (it calls `cancel`).
public final class TransportDialer: IOHandler {
    /// Why no transport was set up, in words for a log line.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The lookup failed for now (no DNS server answered); it may work later.
        case lookup(String)
        /// The name has no address: it does not exist, or has none (the resolver said so).
        case noSuchName(String)
        /// Every address of the host was refused by `admits`.
        case refusedAddresses(String)
        /// No address took the connection.
        case connect(String)
        case tls(String)

        public var description: String {
            switch self {
            case .lookup(let text), .noSuchName(let text), .refusedAddresses(let text), .connect(let text), .tls(let text): text
            }
        }
    }

    private enum State { case idle, resolving, connecting, handshaking, done }

    private let host: String
    private let port: UInt16
    /// `host[:port]` as the caller names the server in messages.
    private let label: String
    private let tls: TLSClientContext?
    private let loop: EventLoop
    private let admits: (IPAddress) -> Bool
    private var completion: ((Result<any Transport, Failure>) -> Void)?

    private var state = State.idle
    private var addresses: [IPAddress] = []
    private var addressIndex = 0
    private var errors: [String] = []
    private var fd: Int32 = -1
    private var registration: IORegistration?
    private var interest: Interest = []
    private var transport: (any Transport)?

    public init(host: String, port: UInt16, label: String, tls: TLSClientContext?, loop: EventLoop,
                admits: @escaping (IPAddress) -> Bool = { _ in true },
                completion: @escaping (Result<any Transport, Failure>) -> Void) {
        self.host = host
        self.port = port
        self.label = label
        self.tls = tls
        self.loop = loop
        self.admits = admits
        self.completion = completion
    }

    /// Begins; the result comes on a later turn. The loop's registration (and the lookup's
    /// callback) keep the dialer alive until then.
    public func start() {
        guard state == .idle else { return }
        state = .resolving
        HostLookup.resolve(host, loop: loop) { [self] result in
            guard state == .resolving else { return }
            switch result {
            case .success(let found):
                addresses = found.filter(admits)
                if addresses.isEmpty && !found.isEmpty {
                    finish(.failure(.refusedAddresses("every address of \(host) is one this server may not connect to")))
                    return
                }
                connectNext()
            case .failure(let error):
                finish(.failure(error.isPermanent ? .noSuchName(error.description) : .lookup(error.description)))
            }
        }
    }

    /// Stops: whatever is open is closed and no result comes.
    public func cancel() {
        guard state != .done else { return }
        state = .done
        completion = nil
        drop()
    }

    private func connectNext() {
        while addressIndex < addresses.count {
            let address = addresses[addressIndex]
            addressIndex += 1
            do {
                fd = try TCPConnect.start(address, port: port)
            } catch {
                errors.append("\(address): \(error)")
                continue
            }
            do {
                registration = try loop.register(fd: fd, interest: .writable, handler: self)
                interest = .writable
            } catch {
                errors.append("\(address): \(error)")
                drop()
                continue
            }
            state = .connecting
            return
        }
        finish(.failure(.connect("cannot connect to \(label): \(errors.joined(separator: "; "))")))
    }

    public func handleIO(_ events: IOEvents) {
        switch state {
        case .connecting: connected()
        case .handshaking: handshake()
        case .idle, .resolving, .done: break
        }
    }

    private func connected() {
        if let error = TCPConnect.result(fd) {
            errors.append("\(addresses[addressIndex - 1]): \(error)")
            drop()
            connectNext()
            return
        }
        do throws(TLSError) {
            if let tls {
                transport = try TLSTransport(client: tls, fd: fd, serverName: host)
            } else {
                transport = PlainTransport(fd: fd)
            }
        } catch {
            finish(.failure(.tls("TLS with \(label): \(error)")))
            return
        }
        state = .handshaking
        handshake()
    }

    private func handshake() {
        guard let transport else { return }
        do {
            guard try transport.establish() else {
                setInterest(Interest.readable.union(transport.neededInterest))
                return
            }
        } catch {
            finish(.failure(.tls("TLS with \(label): \(error)")))
            return
        }
        // Handed over: the caller registers the socket as its own.
        if let registration { loop.unregister(registration) }
        registration = nil
        self.transport = nil
        fd = -1
        finish(.success(transport))
    }

    private func setInterest(_ wanted: Interest) {
        guard let registration, wanted != interest else { return }
        do {
            try loop.modify(registration, interest: wanted)
            interest = wanted
        } catch {
            finish(.failure(.connect("epoll: \(error)")))
        }
    }

    private func drop() {
        if let registration { loop.unregister(registration) }
        registration = nil
        interest = []
        if let transport {
            transport.close()
        } else if fd >= 0 {
            Glibc.close(fd)
        }
        fd = -1
        transport = nil
    }

    private func finish(_ result: Result<any Transport, Failure>) {
        guard state != .done, let completion else { return }
        state = .done
        self.completion = nil
        if case .failure = result { drop() }
        // The caller may let go of the dialer in its completion: it stays until this returns.
        withExtendedLifetime(self) { completion(result) }
    }
}
