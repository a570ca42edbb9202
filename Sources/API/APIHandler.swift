import Crypto
import EventLoop
import HTTP
import JSON
import Logging
import Relaydeck

/// The REST surface on the HTTP server: routes a request, checks its credential and limits,
/// runs the endpoint and maps every error to the contract's shape, in that order
/// (`rest-api.md#activity-log`: an unknown path, a body that is not JSON or too large are
/// refused before the credential is read).
public final class APIHandler: HTTPHandler {
    let services: Services
    let configuration: APIConfiguration
    let loop: EventLoop
    private var routes: [Route] = []
    private var requestLimiter: RateLimiter
    private var accountLimiter: RateLimiter
    /// Called after a deletion, so the purge of the rows starts soon.
    public var onDeletion: (() -> Void)?

    public init(services: Services, configuration: APIConfiguration, loop: EventLoop) {
        self.services = services
        self.configuration = configuration
        self.loop = loop
        requestLimiter = RateLimiter(limit: configuration.requestsPerMinute, periodMicros: 60_000_000)
        accountLimiter = RateLimiter(limit: configuration.accountsPerHour, periodMicros: 3_600_000_000)
        routes = Self.routeTable
    }

    // MARK: HTTPHandler

    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        var pattern = "(none)"
        let response = self.response(for: request, pattern: &pattern)
        responder.respond(response)
        if Log.enabled(.debug) {
            let micros = (loop.clock.now - request.receivedAt).nanoseconds / 1000
            Log.debug("request", [
                "method": request.method.name, "route": pattern, "status": String(response.status),
                "duration_ms": Self.millisText(micros),
            ])
        }
    }

    public func refusal(status: Int, reason: String) -> HTTPResponse {
        APIError.refusal(status: status).response
    }

    // MARK: Steps

    /// The answer to `request`, errors included; `pattern` gets the matched route.
    func response(for request: HTTPRequest, pattern: inout String) -> HTTPResponse {
        do {
            return try answer(request, pattern: &pattern)
        } catch {
            return APIError.from(error).response
        }
    }

    private func answer(_ request: HTTPRequest, pattern: inout String) throws -> HTTPResponse {
        let path = Route.segments(of: request.head.pathBytes)
        guard let (route, parameters) = match(path) else { throw APIError.notFound }
        pattern = route.pattern
        guard let endpoint = route.endpoint(for: request.method) else {
            throw APIError.methodNotAllowed(allow: route.allowedMethods)
        }
        var body: JSON?
        if endpoint.takesBody && !request.body.isEmpty {
            do {
                body = try JSONParser.parse(request.body)
            } catch {
                throw APIError.badJSON
            }
        }
        var exchange = Exchange(request: request, parameters: parameters, body: body, principal: nil)
        if endpoint.access != .anyone {
            exchange.principal = try authenticate(request, access: endpoint.access)
        }
        return try endpoint.run(self, &exchange)
    }

    private func match(_ path: [ArraySlice<UInt8>]) -> (Route, [String])? {
        for route in routes {
            if let parameters = route.match(path) { return (route, parameters) }
        }
        return nil
    }

    /// The credential, its app code, its use, its rate limit, then its type. The request
    /// counts toward the limit before its type is checked, but a wrong type answers 403 ahead
    /// of 429 (api-behaviour.md: the errors are checked in that order).
    private func authenticate(_ request: HTTPRequest, access: Access) throws -> Principal {
        let presented = try Self.credential(in: request.head)
        guard let principal = try services.authenticator.authenticate(presented) else { throw APIError.unauthorized }
        switch principal {
        case .account:
            try checkAppCode(request)
        case .key(let use):
            let host = request.head.header("x-relaydeck-host").flatMap(TextRules.hostName)
            try services.keys.recordUse(use, host: host)
        }
        let decision = requestLimiter.take(principal.credentialID, now: nowMicros)
        switch (access, principal) {
        case (.account, .key): throw APIError.forbiddenForKey
        case (.apiKey, .account): throw APIError.forbiddenForAccount
        default: break
        }
        if case .limited(let seconds) = decision {
            throw APIError.rateLimited(retryAfter: seconds)
        }
        return principal
    }

    /// `Authorization: Bearer <secret>` or `X-API-Key: <secret>`; both only if they agree.
    static func credential(in head: HTTPRequestHead) throws(APIError) -> Substring {
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
        default: throw .unauthorized
        }
    }

    /// `app-integrity.md#app-code`: with `APP_TOTP_SECRET` set, the app proves itself on
    /// account creation and on each request with an account token.
    func checkAppCode(_ request: HTTPRequest) throws(APIError) {
        guard let secret = configuration.appCodeSecret else { return }
        guard let code = request.head.header("x-app-code"),
              TOTP.verify(code, secret: secret, unixTime: services.clock.nowMillis / 1000) else {
            throw .appCodeInvalid
        }
    }

    /// Counts an account creation for the client's address (resolved only here: no other
    /// route needs it, so the hot path does not parse X-Forwarded-For).
    func takeAccountCreation(_ request: HTTPRequest) throws(APIError) {
        let client = ClientKey.resolve(peer: request.peer, forwardedFor: request.head.headers("x-forwarded-for"),
                                       trusted: configuration.trustedProxies)
        if case .limited(let seconds) = accountLimiter.take(client.text, now: nowMicros) {
            throw .rateLimited(retryAfter: seconds)
        }
    }

    private var nowMicros: Int64 { loop.now.nanoseconds / 1000 }

    static func millisText(_ micros: Int64) -> String {
        let whole = micros / 1000
        let fraction = micros % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(whole).\(padded)"
    }
}
