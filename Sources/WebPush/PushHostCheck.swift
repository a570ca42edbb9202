import EventLoop
import Transports

/// Where a subscription's endpoint leads, decided when the subscription is stored: a name is
/// looked up (off the loop, through `HostLookup`), and one that resolves to an address of this
/// machine or its networks is refused by `PushAddressRule`, as a literal address is without a
/// lookup. Each send checks again (`PushDelivery`), since DNS can change in between.
public struct PushHostCheck {
    /// Looks `host` up and calls back once, on the loop.
    public typealias Resolve = (_ host: String, _ loop: EventLoop,
                                _ done: @escaping (Result<[IPAddress], HostLookupError>) -> Void) -> Void

    /// What the lookup says of the host.
    public enum Verdict: Equatable, Sendable {
        /// Every address is on the public internet.
        case allowed
        /// At least one address is this machine's or its networks': a name that leads there for
        /// one client leads there for the server too, whichever address it tries first.
        case privateAddress
        /// The name has no address (it does not exist, or has none), in the resolver's words.
        case noAddress(String)
        /// The lookup failed for now (no DNS server answered); it may work later.
        case lookupFailed(String)
    }

    private let resolve: Resolve

    public init(resolve: @escaping Resolve = HostLookup.resolve) {
        self.resolve = resolve
    }

    /// Decides on `host`, a name or literal of `PushEndpoint`; `done` runs on the loop.
    public func check(_ host: String, loop: EventLoop, done: @escaping (Verdict) -> Void) {
        if PushAddressRule.isPrivateName(host) {
            loop.runSoon { done(.privateAddress) }
            return
        }
        resolve(host, loop) { result in
            switch result {
            case .success(let addresses):
                done(addresses.allSatisfy(PushAddressRule.isPublic) ? .allowed : .privateAddress)
            case .failure(let failure):
                done(failure.isPermanent ? .noAddress(failure.description) : .lookupFailed(failure.description))
            }
        }
    }
}
