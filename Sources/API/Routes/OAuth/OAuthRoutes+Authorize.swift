import HTTP
import JSON
import Relaydeck

extension OAuthRoutes {
    /// `GET /oauth/authorize` (OAuth 2.1 4.1.1): a request that checks out goes on to the
    /// console's consent page, which signs the person in first when needed; the console keeps
    /// the request in its address. A client or redirect URI that does not check out gets a
    /// page of this server, never a redirect; a later problem goes back to the client.
    func authorize(_ call: Call) throws -> Outcome {
        do {
            _ = try AuthorizationRequest.read(call.request.head.query, clients: context.services.oauthClients,
                                              configuration: context.configuration)
            return .respond(Self.found("/app/#/authorize?" + (call.request.head.query ?? "")))
        } catch let failure as AuthorizationRequest.Failure {
            return .respond(answer(failure, request: call.request))
        }
    }

    /// A failure of an authorization request as the browser meets it: a page, or the client's
    /// redirect URI with `error`.
    func answer(_ failure: AuthorizationRequest.Failure, request: HTTPRequest) -> HTTPResponse {
        switch failure {
        case .page(let message):
            return Self.errorPage(message, request: request, configuration: context.configuration)
        case .redirect(let uri, let state, let error, let description):
            return Self.found(AuthorizationRequest.redirect(uri, [("error", error), ("error_description", description)],
                                                            state: state, issuer: context.configuration.oauthIssuer ?? ""))
        }
    }

    static func found(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 302, headers: [("Location", location), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")])
    }

    /// The site's frame (no script, no framing), `400`, never cached.
    static func errorPage(_ message: String, request: HTTPRequest, configuration: APIConfiguration) -> HTTPResponse {
        let origin = (try? SiteOrigin.of(request, configuration: configuration)) ?? SiteOrigin(url: "", fromRequest: true)
        let body = "<h1>This sign-in cannot go on</h1>\n<p>\(SitePage.escape(message))</p>\n"
            + "<p>Nothing was shared. Go back to the application and connect again.</p>"
        let page = SitePage.response(title: "Sign-in refused · Relaydeck", body: body, origin: origin)
        return HTTPResponse(status: 400, headers: page.headers.filter { $0.name != "Cache-Control" } + [("Cache-Control", "no-store")],
                            body: page.body)
    }
}
