import Crypto
import HTTP
import JSON
import Relaydeck

/// The web console's sign-in (`docs/web-console-api.md`): sessions made from a login link or
/// the account token, listed and ended; passkeys registered with a session and used to sign
/// in without one. The routes read the session cookie themselves (`WebCookie.session`), so
/// none of them takes a header credential, and none has an activity entry.
final class WebRoutes: RouteGroup {
    let context: APIContext
    var signIn: WebSignIn { context.services.webSignIn }
    /// The passkeys' challenges: in memory with SQLite, shared by the nodes with PostgreSQL.
    let challenges: any OneTimeChallenges
    /// Sign-in attempts (a link, a token, a passkey) for each client address.
    let attemptLimiter: RateLimit
    /// Passkey challenges for each client address (`Limits.Rate.webChallenges`).
    let challengeLimiter: RateLimit

    init(_ context: APIContext) {
        self.context = context
        challenges = context.services.challengeBook(.passkey, local: PasskeyChallenges())
        attemptLimiter = context.rateLimit(.webSignIn)
        challengeLimiter = context.rateLimit(.webChallenges)
    }

    var routes: [Route] {
        [
            Route("/web/session", [
                Endpoint(.get, .anyone { [self] call in try await current(call) }),
                Endpoint(.post, body: true, .anyone { [self] call in try await signInWithSecret(call) }),
                Endpoint(.delete, .anyone { [self] call in try await signOut(call) }),
            ]),
            Route("/web/sessions", [
                Endpoint(.get, .anyone { [self] call in try await listSessions(call) }),
            ]),
            Route("/web/sessions/{session_id}", [
                Endpoint(.delete, .anyone { [self] call in try await removeSession(call) }),
            ]),
            Route("/web/passkeys/registration-options", [
                Endpoint(.post, writes: false, .anyone { [self] call in try await registrationOptions(call) }),
            ]),
            Route("/web/passkeys", [
                Endpoint(.get, .anyone { [self] call in try await listPasskeys(call) }),
                Endpoint(.post, body: true, .anyone { [self] call in try await register(call) }),
            ]),
            Route("/web/passkeys/authentication-options", [
                Endpoint(.post, writes: false, .anyone { [self] call in try await authenticationOptions(call) }),
            ]),
            Route("/web/passkeys/authentication", [
                Endpoint(.post, body: true, .anyone { [self] call in try await authenticate(call) }),
            ]),
            Route("/web/passkeys/{passkey_id}", [
                Endpoint(.delete, .anyone { [self] call in try await removePasskey(call) }),
            ]),
        ]
    }

    // MARK: Shared

    /// The request's live session; `401` without one.
    func session(_ call: Call) async throws -> WebSession {
        guard let session = try await WebCookie.session(of: call.request, context: context) else { throw APIError.unauthorized }
        return session
    }

    var secureCookie: Bool { WebCookie.secure(context.configuration) }

    func origin(_ call: Call) throws(APIError) -> WebOrigin {
        guard let origin = WebOrigin(call.request.head, publicOrigin: context.configuration.publicOrigin, servesHTTPS: context.configuration.servesHTTPS) else {
            throw APIError(400, "bad_request", "The request has no Host header to name the server's origin.")
        }
        return origin
    }

    /// One more sign-in attempt from the request's address; `429` past the limit.
    func countAttempt(_ call: Call) async throws(APIError) {
        try await attemptLimiter.admit(context.client(of: call.request).text, now: context.nowMicros)
    }

    /// One more passkey challenge for the request's address; `429` past the limit.
    func countChallenge(_ call: Call) async throws(APIError) {
        try await challengeLimiter.admit(context.client(of: call.request).text, now: context.nowMicros)
    }

    /// `201 {"session": ..., "account_id": ...}` with the cookie.
    func signedIn(_ accountID: String, _ call: Call) async throws -> Outcome {
        let (session, secret) = try await signIn.createSession(accountID: accountID, userAgent: call.request.head.header("user-agent"))
        var writer = JSONWriter(capacity: 320)
        writer.beginObject()
        writer.key("session")
        session.write(to: &writer, current: true)
        writer.key("account_id")
        writer.string(accountID)
        writer.endObject()
        return .respond(HTTPResponse(status: 201, headers: Answers.privateHeaders + [WebCookie.set(secret, secure: secureCookie)],
                                     body: writer.bytes))
    }

    // MARK: Sessions

    /// `POST /web/session` with `login_token` (the operator's link, once) or `account_token`.
    func signInWithSecret(_ call: Call) async throws -> Outcome {
        try OwnOrigin.screen(call.request.head, context.configuration)
        var body = call.bodyReader()
        let loginToken = body.read("login_token", .string)
        let accountToken = body.read("account_token", .string)
        if body.problems.isEmpty, (loginToken == nil) == (accountToken == nil) {
            body.add("login_token", "Send login_token or account_token, one of them.")
        }
        try body.check()
        try await countAttempt(call)
        if let loginToken {
            guard let accountID = try await signIn.redeemLoginToken(loginToken) else { throw APIError.unauthorized }
            return try await signedIn(accountID, call)
        }
        guard let accountToken, Secret.kind(of: Substring(accountToken)) == .accountToken,
              case .account(let accountID)? = try await context.services.authenticator.authenticate(Substring(accountToken)) else {
            throw APIError.unauthorized
        }
        return try await signedIn(accountID, call)
    }

    /// `GET /web/session`
    func current(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        let passkeys = try await signIn.passkeys(accountID: session.accountID).count
        return Answers.object(capacity: 320) { writer in
            writer.beginObject()
            writer.key("session")
            session.write(to: &writer, current: true)
            writer.key("account_id")
            writer.string(session.accountID)
            writer.key("passkeys")
            writer.int(passkeys)
            writer.endObject()
        }
    }

    /// `DELETE /web/session`: sign out; the cookie is cleared.
    func signOut(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        try await signIn.deleteSession(accountID: session.accountID, id: session.id)
        context.sessionStreams.end(session: session.id)
        return .respond(HTTPResponse(status: 204, headers: [("Cache-Control", "no-store"), WebCookie.clear(secure: secureCookie)]))
    }

    /// `GET /web/sessions`
    func listSessions(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        let sessions = try await signIn.sessions(accountID: session.accountID)
        return Answers.list("sessions", sessions) { item, writer in item.write(to: &writer, current: item.id == session.id) }
    }

    /// `DELETE /web/sessions/{session_id}`: another browser's session, or this one.
    func removeSession(_ call: Call) async throws -> Outcome {
        let session = try await session(call)
        let id = try call.path("session_id")
        guard Identifier.isWellFormed(Substring(id), prefix: "wss_") else { throw DomainError.notFound("Session not found.") }
        try await signIn.deleteSession(accountID: session.accountID, id: id)
        context.sessionStreams.end(session: id)
        return Answers.noContent
    }
}
