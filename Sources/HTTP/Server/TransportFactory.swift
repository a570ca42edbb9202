import EventLoop
import Transports

/// Makes the transport of each accepted connection (TLS sessions share one context, which a
/// reload replaces for new connections only). None: `PlainTransport`.
public protocol TransportFactory: AnyObject {
    func makeTransport(fd: Int32) throws(Errno) -> any Transport
}
