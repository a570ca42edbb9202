import HTTP
import Relaydeck

/// The `WWW-Authenticate` header that sends an OAuth client to discovery (RFC 6750 3, RFC 9728
/// 5.1; the MCP authorization specification's "Authorization Server Discovery"). With OAuth on
/// (`PUBLIC_URL`):
/// - `/mcp` answered `401`: without a credential, `Bearer resource_metadata="...",
///   scope="<every scope>"` (the person narrows them at consent); with one that does not work
///   (expired, revoked, another resource's), `error="invalid_token"` too.
/// - a route refused `403 insufficient_scope` to an OAuth access token: `Bearer
///   error="insufficient_scope", scope="<the scope>", resource_metadata="..."`. A `tools/call`
///   of a tool the grant may not use stays a tool error (`200`): the grant can hold no scope its
///   key lacks, so a client sent back to authorize would ask the person for what the key cannot
///   give, while a tool error tells the model, and through it the person, which scope to add
///   to the key in the console (the scopes slice's reasoning holds for grants alike).
/// API keys and account tokens get no such header: they are not OAuth's, and their answers stay
/// as the contract gives them.
enum BearerChallenge {
    static func header(for error: APIError, request: HTTPRequest, surface: ActivityEntry.Surface, principal: Principal?,
                       configuration: APIConfiguration) -> (name: String, value: String)? {
        guard let issuer = configuration.oauthIssuer else { return nil }
        let metadata = #"resource_metadata="\#(OAuthMetadata.protectedResourceURL(issuer))""#
        switch (error.status, error.missingScope) {
        case (401, _) where surface == .mcp:
            if request.head.headers("authorization").isEmpty, request.head.headers("x-api-key").isEmpty {
                return ("WWW-Authenticate", #"Bearer \#(metadata), scope="\#(ScopeSet.all.words)""#)
            }
            return ("WWW-Authenticate", #"Bearer error="invalid_token", \#(metadata)"#)
        case (403, let scope?) where principal?.grant != nil:
            return ("WWW-Authenticate", #"Bearer error="insufficient_scope", scope="\#(scope.rawValue)", \#(metadata)"#)
        default:
            return nil
        }
    }
}
