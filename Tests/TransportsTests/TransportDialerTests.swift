#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import Testing
import TestSupport
@testable import Transports

/// The client side's set-up, over loopback: a listener that takes the connection, a port
/// nothing listens on, and an address rule that refuses every address.
@Suite struct TransportDialerTests {
    func dial(host: String = "127.0.0.1", port: UInt16,
              admits: @escaping (IPAddress) -> Bool = { _ in true }) throws -> Result<any Transport, TransportDialer.Failure>? {
        let loop = try EventLoop()
        var result: Result<any Transport, TransportDialer.Failure>?
        let dialer = TransportDialer(host: host, port: port, label: "\(host):\(port)", tls: nil, loop: loop,
                                     admits: admits) { result = $0 }
        dialer.start()
        let deadline = SystemClock.shared.now + .seconds(10)
        while result == nil && SystemClock.shared.now < deadline {
            loop.runOnce(maxWait: .milliseconds(20))
        }
        if case .success(let transport)? = result { transport.close() }
        return result
    }

    @Test func aListeningPortGivesAnEstablishedTransport() throws {
        let (listener, port) = bindLoopbackTCP()
        defer { close(listener) }
        #expect(listen(listener, 8) == 0)
        guard case .success(let transport)? = try dial(port: port) else {
            Issue.record("no transport")
            return
        }
        #expect(transport.isEstablished)
    }

    @Test func aPortNothingListensOnIsAConnectFailureNamingTheServer() throws {
        let (held, port) = closedLoopbackPort()
        defer { close(held) }
        guard case .failure(.connect(let reason))? = try dial(port: port) else {
            Issue.record("expected a connect failure")
            return
        }
        #expect(reason.hasPrefix("cannot connect to 127.0.0.1:\(port): 127.0.0.1: "), "\(reason)")
    }

    @Test func addressesTheRuleRefusesAreNeverConnectedTo() throws {
        let (listener, port) = bindLoopbackTCP()
        defer { close(listener) }
        #expect(listen(listener, 8) == 0)
        guard case .failure(let failure)? = try dial(port: port, admits: { _ in false }) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(failure == .refusedAddresses("every address of 127.0.0.1 is one this server may not connect to"))
        // Nothing came to the listener.
        _ = fcntl(listener, F_SETFL, O_NONBLOCK)
        #expect(accept(listener, nil, nil) == -1)
    }

    @Test func aNameWithNoAddressIsNoSuchNameInTheResolversWords() throws {
        // A label over 63 bytes: the C library refuses it before any query, so no DNS server
        // is needed and the answer is the same everywhere.
        let host = String(repeating: "a", count: 64) + ".invalid"
        guard case .failure(.noSuchName(let reason))? = try dial(host: host, port: 443) else {
            Issue.record("expected no such name")
            return
        }
        #expect(reason.hasPrefix("cannot resolve \"\(host)\": "), "\(reason)")
    }
}
