import JSON
import Relaydeck

/// An RFC 7591 registration request read and checked: what this server keeps of a client's
/// metadata. Unknown members are ignored (RFC 7591 2); a known one of the wrong kind, a grant
/// or response type this server does not issue, or a redirect URI it does not allow refuses
/// the whole request (3.2.2: `invalid_redirect_uri`, `invalid_client_metadata`).
struct ClientRegistration {
    let name: CheckedText
    let redirectURIs: [String]
    let authMethod: OAuthClient.AuthMethod

    static let grantTypes: Set = ["authorization_code", "refresh_token"]

    init(_ body: [UInt8]) throws(OAuthError) {
        guard let json = try? JSONParser.parse(body), json.objectValue != nil else {
            throw Self.invalid("The body must be a JSON object.")
        }
        guard json.firstDuplicateKey == nil else { throw Self.invalid("A member is sent more than once.") }
        redirectURIs = try Self.redirectURIs(json["redirect_uris"])
        authMethod = try Self.authMethod(json["token_endpoint_auth_method"])
        try Self.check(json["grant_types"], "grant_types", allowed: Self.grantTypes)
        try Self.check(json["response_types"], "response_types", allowed: ["code"])
        if let scope = json["scope"] {
            guard let words = scope.stringValue, ScopeSet(words: words) != nil else {
                throw Self.invalid("scope must name scopes of this server, separated by spaces.")
            }
        }
        name = try Self.name(json["client_name"], redirectURIs: redirectURIs)
    }

    private static func invalid(_ description: String) -> OAuthError {
        OAuthError(400, "invalid_client_metadata", description)
    }

    private static func redirectURIs(_ value: JSON?) throws(OAuthError) -> [String] {
        guard let items = value?.arrayValue, !items.isEmpty else {
            throw OAuthError(400, "invalid_redirect_uri", "redirect_uris must list 1 to \(OAuthClients.maxRedirectURIs) URIs.")
        }
        guard items.count <= OAuthClients.maxRedirectURIs else {
            throw OAuthError(400, "invalid_redirect_uri", "redirect_uris must list 1 to \(OAuthClients.maxRedirectURIs) URIs.")
        }
        var uris: [String] = []
        for item in items {
            guard let uri = item.stringValue, RedirectURI.isAllowed(uri) else {
                throw OAuthError(400, "invalid_redirect_uri",
                                 "Each redirect URI must be https:, http: to this machine (127.0.0.1, [::1], localhost), "
                                     + "or an app's own scheme; without a fragment, at most \(RedirectURI.maxBytes) bytes.")
            }
            if !uris.contains(uri) { uris.append(uri) }
        }
        return uris
    }

    /// RFC 7591 2: `client_secret_basic` when the client names none.
    private static func authMethod(_ value: JSON?) throws(OAuthError) -> OAuthClient.AuthMethod {
        guard let value else { return .clientSecretBasic }
        guard let name = value.stringValue, let method = OAuthClient.AuthMethod(rawValue: name) else {
            throw invalid("token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.")
        }
        return method
    }

    private static func check(_ value: JSON?, _ member: String, allowed: Set<String>) throws(OAuthError) {
        guard let value else { return }
        guard let items = value.arrayValue, items.count <= 10,
              items.allSatisfy({ $0.stringValue.map(allowed.contains) ?? false }) else {
            throw invalid("\(member) may only name \(allowed.sorted().joined(separator: " and ")).")
        }
    }

    /// The name the person will see: the client's, or the host it sends people back to.
    private static func name(_ value: JSON?, redirectURIs: [String]) throws(OAuthError) -> CheckedText {
        if let value {
            guard let text = value.stringValue, case .success(let checked) = TextRule.clientName.check(text) else {
                throw invalid("client_name must be 1 to 100 characters on one line.")
            }
            return checked
        }
        let host = redirectURIs.lazy.compactMap(RedirectURI.host(ofURI:)).first ?? "an unnamed client"
        switch TextRule.clientName.check(String(host.prefix(100))) {
        case .success(let checked): return checked
        case .failure: throw invalid("client_name is required.")
        }
    }
}
