#if canImport(Glibc)
import Glibc
#endif
import CLinux
import EventLoop
import Testing
@testable import relaydeckd

/// A datagram socket of the test's own, standing in for systemd's notify socket.
final class NotifyListener {
    let fd: Int32
    let path: String

    init(abstract: Bool = false) {
        path = abstract ? "@relaydeck-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" : "/tmp/relaydeck-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        if !path.hasPrefix("@") { unlink(path) }
    }

    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }
}

@Suite struct SystemdTests {
    @Test func notifierSendsDatagramsToAPathSocket() throws {
        let listener = NotifyListener()
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.path]))
        notifier.notify("READY=1\nSTATUS=Listening on 127.0.0.1:8080")
        #expect(listener.receive() == "READY=1\nSTATUS=Listening on 127.0.0.1:8080")
        notifier.notify("STOPPING=1")
        #expect(listener.receive() == "STOPPING=1")
    }

    @Test func notifierSendsDatagramsToAnAbstractSocket() throws {
        let listener = NotifyListener(abstract: true)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.path]))
        notifier.notify("WATCHDOG=1")
        #expect(listener.receive() == "WATCHDOG=1")
    }

    @Test func noNotifySocketMeansNoNotifier() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
    }

    @Test func socketActivationForAnotherProcessIsIgnored() throws {
        #expect(try SocketActivation.descriptors(environment: [:]) == [])
        #expect(try SocketActivation.descriptors(environment: ["LISTEN_PID": String(getpid() + 1), "LISTEN_FDS": "1"]) == [])
        #expect(try SocketActivation.descriptors(environment: ["LISTEN_PID": "x", "LISTEN_FDS": "1"]) == [])
    }

    @Test func socketActivationRefusesABadCount() {
        #expect(throws: SocketActivation.Failure.self) {
            try SocketActivation.descriptors(environment: ["LISTEN_PID": String(getpid()), "LISTEN_FDS": "0"])
        }
        #expect(throws: SocketActivation.Failure.self) {
            try SocketActivation.descriptors(environment: ["LISTEN_PID": String(getpid()), "LISTEN_FDS": "many"])
        }
    }

    @Test func commandLineAnswersVersionAndRefusesUnknownCommands() {
        #expect(CommandLine.main(["version"]) == 0)
        #expect(CommandLine.main(["help"]) == 0)
        #expect(CommandLine.main(["frobnicate"]) == 2)
    }
}
