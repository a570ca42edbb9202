import EventLoop
import TLS

/// What sends one push request and gives its result once, on a later loop turn: a
/// `PushDelivery` each time (`WebPushSender`), or a test's stand-in.
public protocol WebPushSending: AnyObject {
    func send(_ request: PushRequest, authorization: String, completion: @escaping (PushDelivery.Result) -> Void)
}

/// Sends each push on a connection of its own (`PushDelivery`), trusting the system's roots or
/// `WEB_PUSH_CA_FILE`'s, and refusing private addresses unless allowed.
public final class WebPushSender: WebPushSending {
    private let loop: EventLoop
    private let tls: TLSClientContext
    private let allowsPrivateHosts: Bool
    private let timeout: TimeSpan

    public init(loop: EventLoop, tls: TLSClientContext, allowsPrivateHosts: Bool, timeout: TimeSpan = .seconds(30)) {
        self.loop = loop
        self.tls = tls
        self.allowsPrivateHosts = allowsPrivateHosts
        self.timeout = timeout
    }

    public func send(_ request: PushRequest, authorization: String, completion: @escaping (PushDelivery.Result) -> Void) {
        PushDelivery(request, authorization: authorization, loop: loop, tls: tls, allowsPrivateHosts: allowsPrivateHosts,
                     timeout: timeout, completion: completion).start()
    }
}
