import Clock
import EventLoop
import HTTPClient
import Relaydeck
import TLS

/// Fetches Client ID Metadata Documents for `/oauth/authorize` (issue 24), off the loop's
/// time: one `GET` through `HTTPClient` within `limits` (5 s for everything, 64 KiB of body),
/// redirects followed within the URL's origin only (`fetchFollowingRedirects`: no redirect to
/// another host), to public addresses only unless `OAUTH_ALLOW_PRIVATE_HOSTS` is set (the
/// `admits` rule, judged at every connection), at most `maxInFlight` at once. The copy is kept
/// for as long as its HTTP caching allows (`CacheLifetime`, at most a day). Loop thread only.
final class ClientDocuments {
    typealias Fetch = (HTTPURL, @escaping (Swift.Result<HTTPClientResponse, HTTPClientFailure>) -> Void) -> Void

    static let limits = HTTPClientLimits(timeout: .seconds(5), maxHeadBytes: 16 * 1024, maxHeaderCount: 100,
                                         maxBodyBytes: 64 * 1024)
    /// How long `/oauth/authorize` holds its request: past the fetch's own deadline, so the
    /// fetch's verdict (a page saying why) comes first.
    static let heldFor = TimeSpan.seconds(10)
    static let maxRedirects = 3
    static let maxInFlight = 16
    static let longestKept = TimeSpan.seconds(86_400)

    /// The fetch itself: the daemon installs one over `HTTPClient` (`install`); tests give
    /// their own. Nil: documents cannot be fetched, and such clients are refused.
    var fetch: Fetch?
    private(set) var inFlight = 0

    /// The real fetch: the system's CAs and `extraCAFile`'s, and the address rule.
    func install(loop: EventLoop, tls: TLSClientContext, allowsPrivateHosts: Bool) {
        let client = HTTPClient(loop: loop, tls: tls, admits: { allowsPrivateHosts || PublicAddresses.isPublic($0) })
        fetch = { url, done in
            client.fetchFollowingRedirects(HTTPClientRequest(url: url, headers: ["Accept": "application/json"]),
                                           maxRedirects: Self.maxRedirects, limits: Self.limits, completion: done)
        }
    }

    /// What came of one fetch: the document and when its copy goes stale, or why there is none
    /// (said to the person on this server's page).
    enum Verdict {
        case document(ClientMetadataDocument, expiresAt: Int64)
        case refused(String)
    }

    /// Whether a fetch may start now (a fetch is installed, and fewer than `maxInFlight` run).
    var canFetch: Bool { fetch != nil && inFlight < Self.maxInFlight }

    /// Why `canFetch` is false, for the person.
    var unavailableMessage: String {
        fetch == nil ? "This server does not fetch client metadata documents."
            : "Too many client metadata documents are being fetched. Try again in a moment."
    }

    /// Fetches `url` and judges the answer; `done` runs once, on the loop, on a later turn.
    /// The caller asked `canFetch` first.
    func fetch(_ url: String, nowMillis: @escaping () -> Int64, done: @escaping (Verdict) -> Void) {
        guard let fetch, let parsed = try? HTTPURL(url) else {
            done(.refused("The client metadata document cannot be fetched: its URL is not one this server can use."))
            return
        }
        inFlight += 1
        fetch(parsed) { [weak self] answer in
            self?.inFlight -= 1
            done(Self.judge(answer, url: url, nowMillis: nowMillis()))
        }
    }

    static func judge(_ answer: Swift.Result<HTTPClientResponse, HTTPClientFailure>, url: String, nowMillis: Int64) -> Verdict {
        switch answer {
        case .failure(.blockedAddress):
            return .refused("The client metadata document is on an address of this machine or its network, which this server does not fetch from.")
        case .failure(.timeout):
            return .refused("The client metadata document did not arrive within 5 seconds.")
        case .failure(.tooLarge):
            return .refused("The client metadata document is larger than 64 KiB.")
        case .failure(.redirectRefused):
            return .refused("The client metadata document redirects to another host, which this server does not follow.")
        case .failure(let failure):
            return .refused("The client metadata document could not be fetched (\(failure.description)).")
        case .success(let response):
            guard response.status == 200 else {
                return .refused("The client metadata document answered \(response.status), not 200.")
            }
            do {
                let document = try ClientMetadataDocument(response.body, url: url)
                let lifetime = CacheLifetime(response.headers, nowUnixSeconds: nowMillis / 1000, maximum: longestKept)
                return .document(document, expiresAt: nowMillis + lifetime.span.milliseconds)
            } catch {
                return .refused("The client metadata document is not valid: \(error.description)")
            }
        }
    }
}
