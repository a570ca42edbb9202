import HTTP
import Relaydeck

/// The authorization server of issue 24 (OAuth 2.1 for connectors): discovery (RFC 9728 and
/// RFC 8414), the authorization endpoint and the console's consent, registration (RFC 7591),
/// the token endpoint and RFC 7009 revocation. Open to anyone (the client authenticates itself by OAuth's rules, not
/// through the gate), so these requests have no principal and no activity entry. Without
/// `PUBLIC_URL` there is no stable issuer or resource to bind tokens to, so OAuth is off and
/// each route says so with a `404`.
final class OAuthRoutes: RouteGroup {
    let context: APIContext
    /// RFC 7591 registrations per client address.
    let registrations: RateLimit

    init(_ context: APIContext) {
        self.context = context
        registrations = context.rateLimit(.oauthRegistrations)
    }

    var routes: [Route] {
        [
            // RFC 9728 3.1: the resource `PUBLIC_URL/mcp`'s own path, and the root form the
            // `WWW-Authenticate` of `/mcp` names (the issue's).
            Route(OAuthMetadata.protectedResourcePath, [metadata(protectedResource)]),
            Route(OAuthMetadata.protectedResourcePath + "/mcp", [metadata(protectedResource)]),
            Route(OAuthMetadata.authorizationServerPath, [metadata(authorizationServer)]),
            Route("/oauth/authorize", [Endpoint(.get, .anyone { [self] call in try await authorize(call) })]),
            Route("/web/oauth/authorization", [
                Endpoint(.get, .anyone { [self] call in try await describe(call) }),
                Endpoint(.post, body: true, .anyone { [self] call in try await decide(&call) }),
            ]),
            Route("/oauth/register", [endpoint { [self] call in try await register(call.request) }]),
            Route("/oauth/token", [formEndpoint { [self] form in try await token(form) }]),
            Route("/oauth/revoke", [formEndpoint { [self] form in try await revoke(form) }]),
        ]
    }

    private func protectedResource(_ configuration: APIConfiguration) -> HTTPResponse? {
        guard let issuer = configuration.oauthIssuer, let resource = configuration.oauthResource else { return nil }
        return OAuthMetadata.protectedResource(issuer: issuer, resource: resource)
    }

    private func authorizationServer(_ configuration: APIConfiguration) -> HTTPResponse? {
        configuration.oauthIssuer.map { OAuthMetadata.authorizationServer(issuer: $0) }
    }

    /// A discovery document: `404` while OAuth is off.
    private func metadata(_ document: @escaping (APIConfiguration) -> HTTPResponse?) -> Endpoint {
        Endpoint(.get, .anyone { [context] _ in
            guard let answer = document(context.configuration) else { throw APIError.oauthOff }
            return .respond(answer)
        })
    }

    /// RFC 6749 4.1.3 and 6.
    /// The grant type is read before the client: an unsupported one is refused as such,
    /// whoever asks.
    private func token(_ form: OAuthForm) async throws -> HTTPResponse {
        switch form["grant_type"] {
        case "authorization_code", "refresh_token": break
        case nil: throw OAuthError.invalidRequest("grant_type is required.")
        default: throw OAuthError.unsupportedGrantType
        }
        // RFC 8707 2.2: a client may name the resource again; it must be this one.
        if let resource = form["resource"], resource != context.configuration.oauthResource {
            throw OAuthError(400, "invalid_target", "resource must be \(context.configuration.oauthResource ?? "").")
        }
        let client = try await authenticate(form)
        let grants = context.services.oauthGrants
        switch form["grant_type"] {
        case "authorization_code":
            let issued = try await grants.exchange(code: try form.required("code"), client: client,
                                                   redirectURI: try form.required("redirect_uri"),
                                                   verifier: try form.required("code_verifier"))
            return OAuthAnswers.tokens(issued)
        case "refresh_token":
            var scopes: ScopeSet?
            if let words = form["scope"] {
                guard let named = ScopeSet(words: words) else { throw OAuthError.invalidScope("scope names an unknown scope.") }
                scopes = named
            }
            return OAuthAnswers.tokens(try await grants.refresh(token: try form.required("refresh_token"), client: client, scopes: scopes))
        default:
            throw OAuthError.unsupportedGrantType
        }
    }

    /// RFC 7009 2.1: `200` with an empty body whether or not the token was one (2.2).
    private func revoke(_ form: OAuthForm) async throws -> HTTPResponse {
        let client = try await authenticate(form)
        let token = try form.required("token")
        if let hint = form["token_type_hint"], hint != "access_token", hint != "refresh_token" {
            throw OAuthError(400, "unsupported_token_type", "token_type_hint must be access_token or refresh_token.")
        }
        try await context.services.oauthGrants.revoke(token: token, client: client)
        return HTTPResponse(status: 200, headers: OAuthAnswers.headers.filter { $0.name != "Content-Type" })
    }

    /// The client of the request, proven (RFC 6749 2.3).
    private func authenticate(_ form: OAuthForm) async throws -> OAuthClient {
        guard let id = form.clientID, !id.isEmpty else {
            throw OAuthError.invalidClient("client_id is required.", basic: form.usedBasic)
        }
        return try await context.services.oauthClients.authenticate(id: id, secret: form.clientSecret)
    }

    /// A POST endpoint of the authorization server that reads a form (RFC 6749 3.2).
    private func formEndpoint(_ answer: @escaping (OAuthForm) async throws -> HTTPResponse) -> Endpoint {
        endpoint { call in
            let form = try OAuthForm(call.request)
            do {
                return try await answer(form)
            } catch {
                // A client that authenticated with `Basic` is refused `401` (RFC 6749 5.2).
                throw OAuthError.from(error, basic: form.usedBasic) ?? error
            }
        }
    }

    /// A POST endpoint of the authorization server: OAuth off without `PUBLIC_URL`; every
    /// refusal in RFC 6749's shape (`OAuthError`), the server's own failures too.
    private func endpoint(_ answer: @escaping (Call) async throws -> HTTPResponse) -> Endpoint {
        var endpoint = Endpoint(.post, .anyone { [context] call in
            guard context.configuration.oauthIssuer != nil else { throw APIError.oauthOff }
            do {
                return .respond(try await answer(call))
            } catch {
                guard let refusal = OAuthError.from(error, basic: false) else { throw error }
                return .respond(refusal.response)
            }
        })
        endpoint.failureAnswer = { _, error in OAuthError.failure(error).response }
        return endpoint
    }
}
