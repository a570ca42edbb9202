import Clock
import Crypto
import HTTP
import Relaydeck

/// The checks between routing and the endpoint, in the contract's order: the credential,
/// its app code and its use, its rate limit, then its type and its scope (`403` before
/// `429`: the request still counts toward the limit).
struct Gate {
    private let context: APIContext
    private let requestLimiter: RateLimit

    init(context: APIContext) {
        self.context = context
        requestLimiter = context.rateLimit(.requests)
    }

    /// The principal of the request's credential for `endpoint`, its app code checked and its
    /// use recorded; the record gets the principal as soon as it is known, so a refusal after
    /// that is still someone's. It may await the store, so it is static: it touches no state
    /// of the gate, and requests waiting on the store at once never hold an access to it
    /// across an await. `limit` follows (its count a `RateLimit`, a class: an await there holds
    /// no access to the gate either).
    static func identify(_ request: HTTPRequest, to endpoint: Endpoint, record: inout RequestRecord,
                                 context: APIContext) async throws -> Principal {
        // A web session (the console's cookie) stands for its account, without the app code:
        // the passkey or login link proved the person. Only when no header credential is sent.
        if !endpoint.keyInQuery, (try Self.headerCredential(in: request.head)) == nil,
           let session = try await WebCookie.session(of: request, context: context) {
            let principal = Principal.account(accountID: session.accountID)
            record.principal = principal
            return principal
        }
        let presented = try Self.credential(in: request.head, keyInQuery: endpoint.keyInQuery)
        guard let principal = try await authenticate(presented, context: context) else { throw APIError.unauthorized }
        record.principal = principal
        switch principal {
        case .account:
            try Self.checkAppCode(request, context: context)
        case .key(let use):
            let host = request.head.header("x-relaydeck-host").flatMap(TextRules.hostName)
            record.host = host
            if let grant = use.grant {
                // The activity log names the connector the person approved (issue 24).
                record.client = Key.Client(name: grant.clientName, version: "")
            }
            do {
                try await context.services.keys.recordUse(use, host: host)
                try await context.services.oauthGrants.recordUse(use)
            } catch StoreError.unavailable {
                // A read while another process holds the write lock: the use is noted by a
                // later request, and the read goes on.
            }
        }
        return principal
    }

    /// Whether the request's credential still stands for `principal`: a request resumed after
    /// work off the loop (`Pending`) asks, because its key, session or account may have been
    /// deleted meanwhile (`401`), or its scopes narrowed (the endpoint's `403`). Its use is not
    /// recorded again and no limit counts it twice; the store's failure when it cannot tell.
    static func readmit(_ request: HTTPRequest, as principal: Principal, to endpoint: Endpoint, context: APIContext) async throws {
        let keyInQuery = endpoint.keyInQuery
        let now: Principal?
        if !keyInQuery, (try Self.headerCredential(in: request.head)) == nil {
            now = try await WebCookie.session(of: request, context: context).map { .account(accountID: $0.accountID) }
        } else {
            now = try await Self.authenticate(try Self.credential(in: request.head, keyInQuery: keyInQuery), context: context)
        }
        guard let now, now.credentialID == principal.credentialID, now.accountID == principal.accountID else {
            throw APIError.unauthorized
        }
        if let refusal = endpoint.refusal(for: now) { throw refusal }
        if let missing = endpoint.missingScope(for: now) { throw APIError.insufficientScope(missing) }
    }

    /// The principal of a presented secret; an OAuth access token counts only for this
    /// server's resource (its audience, RFC 8707) and while OAuth is on.
    private static func authenticate(_ presented: Substring, context: APIContext) async throws -> Principal? {
        try await context.services.authenticator.authenticate(presented, audience: context.configuration.oauthResource)
    }

    /// The rate limit, then the credential's type and scope (`403` before `429`: the request
    /// still counts).
    func limit(_ principal: Principal, _ endpoint: Endpoint) async throws -> Principal {
        let decision = await requestLimiter.take(principal.credentialID, now: context.nowMicros)
        if let refusal = endpoint.refusal(for: principal) { throw refusal }
        if let missing = endpoint.missingScope(for: principal) {
            context.scopeRefusals.refused(missing, surface: .rest)
            throw APIError.insufficientScope(missing)
        }
        if case .limited(let seconds) = decision {
            throw Limits.Rate.requests.refusal(retryAfter: seconds)
        }
        return principal
    }

    /// `app-integrity.md#app-code`: with `APP_TOTP_SECRET` set, the app proves itself on
    /// account creation and on each request with an account token.
    static func checkAppCode(_ request: HTTPRequest, context: APIContext) throws(APIError) {
        guard let secret = context.configuration.appCodeSecret else { return }
        guard let code = request.head.header("x-app-code"),
              TOTP.verify(code, secret: secret, unixTime: context.services.clock.wallMillis / 1000) else {
            throw .appCodeInvalid
        }
    }

    /// `Authorization: Bearer <secret>` or `X-API-Key: <secret>` (or, where the endpoint
    /// allows it, `?key=<secret>`); several only if they agree.
    static func credential(in head: HTTPRequestHead, keyInQuery: Bool = false) throws(APIError) -> Substring {
        let fromHeaders = try headerCredential(in: head)
        guard keyInQuery else {
            guard let fromHeaders else { throw .unauthorized }
            return fromHeaders
        }
        let keys = QueryString.parse(head.query ?? "").parameters.filter { $0.name == "key" }
        guard keys.count <= 1 else { throw .unauthorized }
        let fromQuery = keys.first.map { Substring($0.value) }
        // The query carries an API key only, as `X-API-Key` does.
        if let fromQuery, Secret.kind(of: fromQuery) != .apiKey { throw .unauthorized }
        switch (fromHeaders, fromQuery) {
        case (let presented?, nil), (nil, let presented?): return presented
        case (let header?, let query?) where header == query: return header
        default: throw .unauthorized
        }
    }

    /// The credential of the headers, nil when none was sent.
    private static func headerCredential(in head: HTTPRequestHead) throws(APIError) -> Substring? {
        let authorizations = head.headers("authorization")
        let apiKeys = head.headers("x-api-key")
        guard authorizations.count <= 1, apiKeys.count <= 1 else { throw .unauthorized }
        var bearer: Substring?
        if let authorization = authorizations.first {
            let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw .unauthorized }
            bearer = parts[1].trimmingCharacters(in: " \t")
        }
        let apiKey = apiKeys.first.map { Substring($0) }
        // `overview.md#authentication`: X-API-Key carries an API key, never the account token.
        if let apiKey, Secret.kind(of: apiKey) != .apiKey { throw .unauthorized }
        switch (bearer, apiKey) {
        case (let token?, nil): return token
        case (nil, let key?): return key
        case (let token?, let key?) where token == key: return token
        case (nil, nil): return nil
        default: throw .unauthorized
        }
    }
}
