#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Signals read from a signalfd: they arrive as loop events, never as asynchronous handlers.
final class SignalSource: IOHandler {
    let fd: Int32
    var registration: IORegistration?
    private let handler: (Int32) -> Void

    init(signals: [Int32], handler: @escaping (Int32) -> Void) throws(Errno) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        let result = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard result == 0 else { throw Errno(result) }
        fd = try retryingEINTR { signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
        self.handler = handler
    }

    func handleIO(_ events: IOEvents) {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while read(fd, &info, size) == size {
            handler(Int32(info.ssi_signo))
        }
    }

    func close() {
        Glibc.close(fd)
    }
}
