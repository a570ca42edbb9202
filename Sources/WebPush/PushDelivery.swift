import EventLoop
import HTTPClient
import TLS

/// One push request through the HTTP client (`HTTPClient`, a connection of its own): each
/// address of the endpoint's host checked against `PushAddressRule` before any connection (a
/// name can come to point at this machine after the subscription was stored), TLS with the
/// host's name, the request written and the answer's head read, all within one `timeout`.
/// What is left here is the push's own: the request's fields, the verdict of the head, and
/// which failures are worth another try. The result comes once, on a later turn than `start`.
public struct PushDelivery {
    public enum Result: Sendable, Equatable {
        case answered(PushAnswer)
        /// No answer: the name did not resolve, no address took the connection, TLS failed,
        /// the connection broke, the answer was not HTTP or the time ran out. Worth trying
        /// again.
        case failed(String)
        /// Every address of the host is one a push may not go to: not tried again.
        case blocked(String)
    }

    private let request: PushRequest
    private let authorization: String
    private let loop: EventLoop
    private let tls: TLSClientContext
    private let allowsPrivateHosts: Bool
    private let timeout: TimeSpan
    private let completion: (Result) -> Void

    public init(_ request: PushRequest, authorization: String, loop: EventLoop, tls: TLSClientContext,
                allowsPrivateHosts: Bool, timeout: TimeSpan = .seconds(30), completion: @escaping (Result) -> Void) {
        self.request = request
        self.authorization = authorization
        self.loop = loop
        self.tls = tls
        self.allowsPrivateHosts = allowsPrivateHosts
        self.timeout = timeout
        self.completion = completion
    }

    /// Sends; the fetch keeps itself alive until the result is given.
    public func start() {
        let allowsPrivateHosts = allowsPrivateHosts
        let client = HTTPClient(loop: loop, tls: tls, admits: { allowsPrivateHosts || PushAddressRule.isPublic($0) })
        let (loop, host, completion) = (loop, request.endpoint.host, completion)
        client.fetch(request.clientRequest(authorization: authorization), limits: HTTPClientLimits(timeout: timeout)) { result in
            switch result {
            case .success(let answer):
                completion(.answered(PushAnswer(status: answer.status, headers: answer.headers,
                                                nowUnixSeconds: loop.clock.wallMillis / 1000)))
            case .failure(.blockedAddress):
                completion(.blocked("\(host) is an address of this machine or its network"))
            case .failure(let failure):
                completion(.failed(failure.description))
            }
        }
    }
}
