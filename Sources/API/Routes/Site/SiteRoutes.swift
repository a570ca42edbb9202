import HTTP

/// The server's own small website: `/` says what this server is and how to connect an agent,
/// `/docs/...` is its reference, `/install` the agent setup script with this server's address
/// in it. No credential, no store, no activity entry (none of these requests has a key), and
/// every page names its origin without trusting a Host header it could not check.
struct SiteRoutes: RouteGroup {
    private let configuration: APIConfiguration

    init(_ context: APIContext) {
        configuration = context.configuration
    }

    var routes: [Route] {
        [
            Route("/", [Endpoint(.get, .anyone { call in .respond(try home(call.request)) })]),
            Route("/docs", [Endpoint(.get, .anyone { call in .respond(try docs("", call.request)) })]),
            Route("/docs/{page}", [Endpoint(.get, .anyone { call in .respond(try docs(try call.path("page"), call.request)) })]),
            Route("/install", [Endpoint(.get, .anyone { call in .respond(try install(call.request)) })]),
        ]
    }

    private func home(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let origin = try SiteOrigin.of(request, configuration: configuration)
        let page = HomePage(origin: origin, version: configuration.serverVersion, features: features)
        return SitePage.response(title: "Relaydeck Server", body: page.html, origin: origin)
    }

    private func docs(_ name: String, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard let page = DocsPages.page(named: name) else { throw APIError.notFound }
        let origin = try SiteOrigin.of(request, configuration: configuration)
        return SitePage.response(title: page.title + " · Relaydeck Server", body: page.html(origin), origin: origin)
    }

    /// The script points agents at `/mcp` under the address it was fetched by, so it is given
    /// only under an address `/mcp` answers to (`OwnOrigin.checkHost`): under another name it
    /// would configure agents that are then refused.
    private func install(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let origin = try SiteOrigin.of(request, configuration: configuration)
        try OwnOrigin.checkHost(request.head, configuration)
        return HTTPResponse(status: 200, headers: SitePage.headers(contentType: "text/plain; charset=utf-8", origin: origin),
                            body: InstallScript.text(for: origin.url))
    }

    private var features: HomePage.Features {
        HomePage.Features(push: configuration.pushEnabled, appAttest: configuration.appAttest != nil,
                          appCodes: configuration.appCodeSecret != nil)
    }
}
