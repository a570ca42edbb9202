import EventLoop
import HTTP
import Relaydeck

/// What is known of one request from its first byte to the end of its answer: who sent it
/// (also when a later check refused it), which route it matched, how it ended. The
/// after-response hook gets it once per request that reached the API (the activity log of
/// `rest-api.md#activity-log` is written from it).
public struct RequestRecord: Sendable {
    public enum Ending: Sendable, Equatable {
        /// An answer was written (right away, or after a wait that found a result).
        case answered
        /// A parked call that ended on its time with nothing new.
        case onlyWaited
        /// A parked call or an event stream whose client went away first.
        case clientWentAway
        /// An event stream that ended.
        case streamEnded
    }

    public let method: HTTPMethod
    /// Monotonic, for the duration.
    public let receivedAt: Instant
    /// Wall-clock milliseconds at the same moment: the activity entry's `at`, "when the
    /// request came" (`rest-api.md#entry`).
    public let receivedAtWallMillis: Int64
    /// The activity log's `surface`; the MCP endpoint sets `.mcp`.
    public internal(set) var surface = ActivityEntry.Surface.rest
    /// The MCP `clientInfo` of the request; a REST request has none (`rest-api.md#entry`). A
    /// request with an OAuth access token has its connector's name, as the person approved it
    /// (issue 24), whatever `clientInfo` it sends.
    public internal(set) var client: Key.Client?
    /// The activity log's `action` when it is not the route (an MCP tool or method name).
    public internal(set) var namedAction: String?
    /// Set as soon as the credential checked out, before the app code, the rate limit and
    /// the credential type are looked at.
    public internal(set) var principal: Principal?
    /// The valid `X-Relaydeck-Host` of an API-key request.
    public internal(set) var host: String?
    /// The pattern of the matched route (`/v1/keys/{key_id}`), never an ID.
    public internal(set) var route: String?
    /// The matched route's position in the router, the metrics' slot; nil with no route.
    var routeIndex: Int?
    public internal(set) var status = 0
    /// The error's `code` and message, when the answer is an error of the catalogue.
    public internal(set) var code: String?
    public internal(set) var message: String?
    /// The names of the fields of a `422`, sorted.
    public internal(set) var fields: [String] = []
    public internal(set) var ending = Ending.answered
    /// False for a request that has no activity entry although a key sent it: an MCP
    /// notification (`rest-api.md#what-has-an-entry`).
    public internal(set) var hasEntry = true
    /// Whether the call was parked at some point.
    public internal(set) var parked = false
    /// From the first byte to the end of the answer (or of the stream), waits included.
    public internal(set) var duration = TimeSpan.zero

    init(method: HTTPMethod, receivedAt: Instant, receivedAtWallMillis: Int64) {
        self.method = method
        self.receivedAt = receivedAt
        self.receivedAtWallMillis = receivedAtWallMillis
    }

    /// `PATCH /v1/tasks/{task_id}`, the activity log's `action` of a REST request; the tool or
    /// method name of an MCP request once its endpoint names it.
    public var action: String? {
        namedAction ?? route.map { "\(method.name) \($0)" }
    }

    /// What the endpoint noted: its action, its client, whether it has an entry, and a
    /// failure reported inside a `200` (an MCP tool error carries the REST `code`).
    mutating func apply(_ note: RecordNote) {
        if let action = note.action { namedAction = action }
        if let client = note.client, principal?.grant == nil { self.client = client }
        if note.noEntry { hasEntry = false }
        if let failure = note.failure {
            code = failure.code
            message = failure.message
            fields = failure.fields.map(\.field)
        }
    }

    mutating func note(_ error: APIError) {
        status = error.status
        code = error.code
        message = error.message
        fields = error.fields.map(\.field)
    }
}
