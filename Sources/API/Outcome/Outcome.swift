import EventLoop
import HTTP
import Relaydeck

/// What an endpoint does with its request: answer now, hold it until something changes or
/// its time is up, hold it while work off the loop ends (`Pending`), or turn the connection
/// into an event stream.
enum Outcome {
    case respond(HTTPResponse)
    case park(Wait)
    case pending(Pending)
    case stream(StreamOpening)
}

/// A held request (`GET /v1/questions/{question_id}?wait=`, the inbox, a waiting MCP tool).
/// It ends at the first of: a wake-up on one of its topics whose `poll` gives an answer, its
/// timeout (`expire` answers), the server stopping (`expire` too), the deletion of the key or
/// account that sent it (`401`, the answer a credential that no longer works gets), or the
/// client going away (nothing to answer). The endpoint checks the state before it parks, so a
/// change that committed earlier is never missed.
struct Wait {
    var timeout: TimeSpan
    /// The changes that make it look again.
    var topics: [WakeTopic]
    /// At each wake-up: an answer ends the wait, nil waits on.
    var poll: () async throws -> HTTPResponse?
    /// When the time is up or the server stops: the answer with what there is.
    var expire: () async throws -> HTTPResponse
    /// Whether an answer from `expire` only waited (`rest-api.md#activity-log`: a read that
    /// waited and found nothing has no entry). A question whose own expiry ends the wait got
    /// a result, so its endpoint says false.
    var expiryOnlyWaited = true
    /// The answer when `poll` or `expire` throws, or the wait is refused: the REST error
    /// body, or for an MCP tool a JSON-RPC result (`MCPTools.call` sets it), never the other.
    var failed: (APIError) -> HTTPResponse = { $0.response }
    /// The scope its answer needs (a question's `questions`, an inbox's `inbox`): when a
    /// committed change takes it from the key, the wait ends with `insufficient_scope`
    /// through `failed`, as a new request of the key would be refused.
    var scope: Scope?
}

/// What a change wakes: a name such as `question:qst_...` or `inbox:key_...`, made by the
/// route groups that wait on it and by the code that announces the change.
struct WakeTopic: Hashable, Sendable {
    let name: String

    init(_ name: String) { self.name = name }

    /// A question leaves `pending`.
    static func question(_ id: String) -> WakeTopic { WakeTopic("question:\(id)") }
    /// A key's inbox changes.
    static func inbox(_ keyID: String) -> WakeTopic { WakeTopic("inbox:\(keyID)") }

    /// What a committed change wakes.
    static func topics(for change: Change) -> [WakeTopic] {
        switch change.event {
        case .questionUpdated(let question): [.question(question.id)]
        case .inboxUpdated(let keyID, _): [.inbox(keyID)]
        default: []
        }
    }
}

/// An event stream to open (`GET /v1/events`): the HTTP layer writes the head, then `opened`
/// gets the stream to send on. The stream ends when the client goes, the server stops, the
/// client reads too slowly, or the endpoint calls `end()`.
struct StreamOpening {
    var pingInterval: TimeSpan
    var headers: [(name: String, value: String)] = []
    var opened: (EventStream) -> Void
    /// When the stream ends, whoever ended it.
    var closed: ((EventStream) -> Void)?
}
