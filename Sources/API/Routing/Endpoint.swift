import HTTP
import Relaydeck

/// The account behind an account token.
struct AccountCaller {
    let accountID: String
}

/// One method of one route, with who may call it. Each kind of access hands its endpoint the
/// principal of the type it needs, so no endpoint reads an account ID that might be empty.
struct Endpoint {
    /// Each body is `async`: it runs in the request's task on the loop (`APIHandler.handle`),
    /// and may await the store. A synchronous body is one whose awaits all return at once.
    enum Access {
        case anyone(AnyoneBody)
        /// No credential, and a body that never awaits: run without a task (`/health`, which
        /// monitors ask many times a second).
        case immediate(ImmediateBody)
        case account(Body<AccountCaller>)
        case apiKey(Body<KeyUse>)
        case accountOrKey(Body<Principal>)
    }

    /// An endpoint's body for a caller of type `Caller`. `nonisolated(nonsending)`: it runs on
    /// its caller's executor (the loop's), with no hop to look for it at each call.
    typealias Body<Caller> = nonisolated(nonsending) (inout Call, Caller) async throws -> Outcome
    typealias AnyoneBody = nonisolated(nonsending) (inout Call) async throws -> Outcome
    typealias ImmediateBody = (inout Call) throws -> Outcome

    let method: HTTPMethod
    /// Whether the endpoint reads a JSON body; others ignore what is sent.
    let takesBody: Bool
    /// Whether it may change the store: it then runs holding the write lock (see
    /// `APIHandler+WriteLock`). Every method but GET and HEAD does; a GET that writes (a
    /// read that marks items read) says so.
    let writes: Bool
    let access: Access
    /// Also takes an API key from `?key=` (`overview.md#authentication`: the MCP endpoint
    /// only, for a client that cannot send headers).
    var keyInQuery = false
    /// The scope a credential needs for this endpoint (`Principal.scopes`; the account token
    /// holds every scope). Every endpoint an API key may call names one, except `/mcp`, which
    /// checks the scope of each tool and resource itself (`RouteScopeTests` holds the table).
    let scope: Scope?
    /// A check before the credential is read (the MCP endpoint's `Origin`): what it throws
    /// is the answer.
    var screen: ((HTTPRequest) throws(APIError) -> Void)?
    /// How a failure of the server itself (`5xx`: the store away or busy, a failed COMMIT)
    /// is answered when it is not the REST body: `/mcp` answers a JSON-RPC error.
    var failureAnswer: ((HTTPRequest, APIError) -> HTTPResponse)?

    init(_ method: HTTPMethod, body: Bool = false, writes: Bool? = nil, scope: Scope? = nil, _ access: Access) {
        self.method = method
        self.scope = scope
        takesBody = body
        self.writes = writes ?? (method != .get && method != .head)
        self.access = access
    }

    var needsCredential: Bool {
        switch access {
        case .anyone, .immediate: return false
        default: return true
        }
    }

    /// Runs the endpoint for `principal`: a principal of another type is `403`.
    func run(_ call: inout Call, _ principal: Principal?) async throws -> Outcome {
        switch (access, principal) {
        case (.anyone(let body), _):
            return try await body(&call)
        case (.immediate(let body), _):
            return try body(&call)
        case (.account(let body), .account(let accountID)?):
            return try await body(&call, AccountCaller(accountID: accountID))
        case (.apiKey(let body), .key(let use)?):
            return try await body(&call, use)
        case (.accountOrKey(let body), let principal?):
            return try await body(&call, principal)
        case (.account, .key?):
            throw APIError.forbiddenForKey
        case (.apiKey, .account?):
            throw APIError.forbiddenForAccount
        default:
            throw APIError.unauthorized
        }
    }

    /// The `403` this endpoint gives `principal`'s type of credential, if any: checked before
    /// the rate limit's `429` (api-behaviour: the errors come in that order), and before its
    /// scope (`missingScope`).
    func refusal(for principal: Principal) -> APIError? {
        switch (access, principal) {
        case (.account, .key): .forbiddenForKey
        case (.apiKey, .account): .forbiddenForAccount
        default: nil
        }
    }

    /// The scope `principal` lacks for this endpoint, if any.
    func missingScope(for principal: Principal) -> Scope? {
        guard let scope, !principal.scopes.contains(scope) else { return nil }
        return scope
    }
}
