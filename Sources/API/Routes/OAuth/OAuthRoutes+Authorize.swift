import Clock
import HTTP
import JSON
import Relaydeck

extension OAuthRoutes {
    /// `GET /oauth/authorize` (OAuth 2.1 4.1.1): a request that checks out goes on to the
    /// console's consent page, which signs the person in first when needed; the console keeps
    /// the request in its address. A client or redirect URI that does not check out gets a
    /// page of this server, never a redirect; a later problem goes back to the client. A
    /// client known by its metadata document's URL, whose copy is missing or stale, waits for
    /// the document to be fetched (`Outcome.pending`: the loop goes on meanwhile).
    func authorize(_ call: Call) async throws -> Outcome {
        let request = call.request
        if context.configuration.oauthIssuer != nil, let url = AuthorizationRequest.clientID(in: request.head.query),
           ClientMetadataDocument.isDocumentURL(url), try await !context.services.oauthClients.documentIsFresh(url: url) {
            return fetchingDocument(url, for: request)
        }
        return .respond(await checkedAuthorization(request))
    }

    private func checkedAuthorization(_ request: HTTPRequest) async -> HTTPResponse {
        do {
            _ = try await AuthorizationRequest.read(request.head.query, clients: context.services.oauthClients,
                                                    configuration: context.configuration)
            return Self.found("/app/#/authorize?" + (request.head.query ?? ""))
        } catch let failure as AuthorizationRequest.Failure {
            return answer(failure, request: request)
        } catch {
            return APIError.from(error).response
        }
    }

    /// Holds the request while the document is fetched, keeps its copy, then checks the request
    /// as for any client. A document that cannot be had is this server's page: the client is
    /// not known, so nothing may redirect.
    private func fetchingDocument(_ url: String, for request: HTTPRequest) -> Outcome {
        let documents = context.clientDocuments
        guard documents.canFetch else {
            return .respond(Self.errorPage(documents.unavailableMessage, request: request, configuration: context.configuration))
        }
        let clients = context.services.oauthClients
        let clock = context.services.clock
        let configuration = context.configuration
        return .pending(Pending(timeout: ClientDocuments.heldFor, start: { resume in
            documents.fetch(url, nowMillis: { clock.wallMillis }) { result in
                resume {
                    switch result {
                    case .refused(let message):
                        return .respond(Self.errorPage(message, request: request, configuration: configuration))
                    case .document(let document, let expiresAt):
                        _ = try await clients.keepDocument(url: url, name: document.name, redirectURIs: document.redirectURIs,
                                                           expiresAt: expiresAt)
                        return .respond(await self.checkedAuthorization(request))
                    }
                }
            }
        }, expired: APIError(504, "unavailable", "The client metadata document did not arrive in time.")))
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
