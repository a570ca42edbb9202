import HTTP
import JSON
import Relaydeck

/// The person's answer on the consent page.
enum ConsentDecision: String, CaseIterable {
    case allow, deny
}

/// The console's consent page asks these (`/web/oauth/authorization`): what a request asks,
/// and the person's answer. Only a web session may answer (the person, signed in with a
/// passkey or a link), and a changing request shows the console's own `Origin`
/// (`WebCookie.session`).
extension OAuthRoutes {
    /// `GET /web/oauth/authorization?<the authorization request>`: the client's name, where it
    /// will send the person back, and the scopes it asks.
    func describe(_ call: Call) async throws -> Outcome {
        _ = try await consentSession(call)
        let request = try await checked(call.request.head.query)
        return Answers.object(capacity: 512) { writer in
            writer.beginObject()
            writer.key("client")
            writer.beginObject()
            writer.key("id")
            writer.string(request.client.id)
            writer.key("name")
            writer.string(request.client.name)
            writer.key("redirect_uri")
            writer.string(request.redirectURI)
            writer.key("redirect_host")
            if let host = RedirectURI.host(ofURI: request.redirectURI) { writer.string(host) } else { writer.null() }
            writer.endObject()
            writer.key("scopes")
            writer.beginArray()
            for name in request.scopes.names { writer.string(name) }
            writer.endArray()
            writer.endObject()
        }
    }

    /// `POST /web/oauth/authorization`: `{"request": "<query>", "decision": "allow", "key_id",
    /// "scopes": [...]}` or `{"request", "decision": "deny"}`; `200 {"redirect": "<url>"}`,
    /// where the console sends the browser: the code, or `access_denied`.
    func decide(_ call: inout Call) async throws -> Outcome {
        let session = try await consentSession(call)
        var body = call.bodyReader()
        body.require("request")
        body.require("decision")
        let query = body.read("request", .string)
        let decision = body.read("decision", FieldKind<ConsentDecision>.choice)
        let keyID = body.read("key_id", .string)
        let scopes = body.scopes()
        if decision == .allow, body.problems.isEmpty {
            if keyID == nil { body.add("key_id", "Choose the key the client will act as.") }
            if scopes == nil { body.add("scopes", "Choose at least one scope.") }
        }
        try body.check()
        guard let query, let issuer = context.configuration.oauthIssuer else { throw APIError.oauthOff }
        let request = try await checked(Substring(query))
        guard decision == .allow, let keyID, let scopes else {
            return redirectAnswer(AuthorizationRequest.redirect(
                request.redirectURI, [("error", "access_denied"), ("error_description", "The person declined.")],
                state: request.state, issuer: issuer))
        }
        guard scopes.subtracting(request.scopes).isEmpty else {
            throw DomainError.validation([FieldProblem("scopes", "Must be among the scopes the client asks for.")])
        }
        let code = try await context.services.oauthGrants.issueCode(Consent(
            accountID: session.accountID, keyID: keyID, clientID: request.client.id, scopes: scopes,
            redirectURI: request.redirectURI, codeChallenge: request.challenge, resource: request.resource))
        return redirectAnswer(AuthorizationRequest.redirect(request.redirectURI, [("code", code)], state: request.state,
                                                            issuer: issuer))
    }

    private func redirectAnswer(_ url: String) -> Outcome {
        Answers.object(capacity: 128 + url.utf8.count) { writer in
            writer.beginObject()
            writer.key("redirect")
            writer.string(url)
            writer.endObject()
        }
    }

    /// The session of the person answering; an account token is not a person at a page.
    private func consentSession(_ call: Call) async throws -> WebSession {
        guard context.configuration.oauthIssuer != nil else { throw APIError.oauthOff }
        guard let session = try await WebCookie.session(of: call.request, context: context) else { throw APIError.unauthorized }
        return session
    }

    /// The request checked again; any failure is `400` here (the console shows it), since
    /// `/oauth/authorize` sent the browser on only once it checked out.
    private func checked(_ query: Substring?) async throws -> AuthorizationRequest {
        do {
            return try await AuthorizationRequest.read(query, clients: context.services.oauthClients, configuration: context.configuration)
        } catch let failure as AuthorizationRequest.Failure {
            switch failure {
            case .page(let message): throw APIError(400, "bad_request", message)
            case .redirect(_, _, _, let description): throw APIError(400, "bad_request", description)
            }
        }
    }
}
