import EventLoop
import Transports
import WebPush

/// Name lookups answered from a table, on the loop, as `HostLookup` answers from its thread:
/// the API tests cannot choose what the machine's DNS says. A name marked held waits until
/// the test lets it go (`release`), as a slow DNS server would keep it.
final class NameTable {
    var addresses: [String: [IPAddress]] = [:]
    /// Names whose lookup fails for now (no DNS server answered).
    var unreachable: Set<String> = []
    /// Names whose lookups wait for `release`.
    var held: Set<String> = []
    private var waiting: [(host: String, done: (Result<[IPAddress], HostLookupError>) -> Void)] = []
    /// Every name asked, in order.
    private(set) var asked: [String] = []

    var check: PushHostCheck {
        PushHostCheck { [self] host, loop, done in
            asked.append(host)
            if held.contains(host) {
                waiting.append((host, done))
            } else {
                let result = answer(host)
                loop.runSoon { done(result) }
            }
        }
    }

    /// Answers the held lookups of `host` now.
    func release(_ host: String) {
        let ready = waiting.filter { $0.host == host }
        waiting.removeAll { $0.host == host }
        for lookup in ready { lookup.done(answer(host)) }
    }

    private func answer(_ host: String) -> Result<[IPAddress], HostLookupError> {
        if unreachable.contains(host) {
            return .failure(HostLookupError(description: "cannot resolve \"\(host)\": Temporary failure in name resolution", isPermanent: false))
        }
        guard let found = addresses[host] else {
            return .failure(HostLookupError(description: "cannot resolve \"\(host)\": Name or service not known", isPermanent: true))
        }
        return .success(found)
    }
}
