import Relaydeck

/// An authorization request (OAuth 2.1 4.1.1) read and checked, the same way each time it is
/// seen: at `/oauth/authorize`, when the console shows the consent page, and when the person
/// answers it (the request travels in the page's address, so nothing is kept on the server
/// meanwhile). The client and its redirect URI come first: until both are known and match
/// exactly, nothing may send the browser anywhere (an open redirect), so those failures are a
/// page of this server's; every later one goes back to the client as an error (4.1.2.1).
struct AuthorizationRequest {
    let client: OAuthClient
    let redirectURI: String
    let state: String?
    /// What the client asks for; every scope when it names none (the person chooses).
    let scopes: ScopeSet
    let challenge: String
    let resource: String

    enum Failure: Error, Equatable {
        /// Shown to the person; never a redirect.
        case page(String)
        /// Sent back to the client's redirect URI (with `state` and `iss`).
        case redirect(uri: String, state: String?, error: String, description: String)
    }

    static func read(_ query: Substring?, clients: OAuthClients, configuration: APIConfiguration) async throws -> Self {
        guard let resource = configuration.oauthResource else { throw Failure.page("OAuth is off on this server: its operator has not set PUBLIC_URL.") }
        let (parameters, problems) = QueryString.parse(query ?? "")
        var values: [String: String] = [:]
        var repeated = false
        for parameter in parameters where values.updateValue(parameter.value, forKey: parameter.name) != nil {
            repeated = true
        }
        // A repeated parameter (3.1) might be a second redirect_uri or client_id: which one
        // counts is not for this server to guess, so the page.
        guard !repeated, problems.isEmpty else { throw Failure.page("A parameter was sent more than once, or is not valid encoding.") }
        guard let clientID = values["client_id"], !clientID.isEmpty else { throw Failure.page("The request names no client (client_id).") }
        guard let client = try await clients.get(clientID) else {
            throw Failure.page("The client is not registered with this server. Start again from the application.")
        }
        guard let redirectURI = values["redirect_uri"], client.redirectURIs.contains(redirectURI) else {
            throw Failure.page("The redirect URI is not one the client registered.")
        }
        // From here on, errors go back to the client.
        let state = values["state"]
        func refuse(_ error: String, _ description: String) -> Failure {
            .redirect(uri: redirectURI, state: state, error: error, description: description)
        }
        guard values["response_type"] == "code" else { throw refuse("unsupported_response_type", "response_type must be code.") }
        guard values["code_challenge_method"] == "S256", let challenge = values["code_challenge"], PKCE.isChallenge(challenge) else {
            throw refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256.")
        }
        // RFC 8707: the token is for this server's MCP endpoint and nothing else.
        guard values["resource"] == resource else { throw refuse("invalid_target", "resource must be \(resource).") }
        var scopes = ScopeSet.all
        if let words = values["scope"], !words.isEmpty {
            guard let named = ScopeSet(words: words) else { throw refuse("invalid_scope", "scope names an unknown scope.") }
            scopes = named
        }
        return AuthorizationRequest(client: client, redirectURI: redirectURI, state: state, scopes: scopes,
                                    challenge: challenge, resource: resource)
    }

    /// The `client_id` of a query, when it is sent once.
    static func clientID(in query: Substring?) -> String? {
        let ids = QueryString.parse(query ?? "").parameters.filter { $0.name == "client_id" }
        return ids.count == 1 ? ids[0].value : nil
    }

    /// The client's redirect URI with `parameters`, `state` and `iss` (RFC 9207) added to its
    /// query.
    static func redirect(_ uri: String, _ parameters: [(String, String)], state: String?, issuer: String) -> String {
        var all = parameters
        if let state { all.append(("state", state)) }
        all.append(("iss", issuer))
        let query = all.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
        return uri + (uri.contains("?") ? "&" : "?") + query
    }

    /// RFC 3986's unreserved characters as they are, every other byte `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
