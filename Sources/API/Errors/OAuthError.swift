import HTTP
import JSON
import Relaydeck

/// The one catalogue of the authorization server's errors: RFC 6749 5.2's shape
/// (`{"error": "invalid_grant", "error_description": "..."}`), which OAuth clients read, instead
/// of the REST `{"error": {"code", "message"}}`. Each domain refusal becomes one of these here
/// and nowhere else. A description never quotes what the client sent.
struct OAuthError: Error {
    let status: Int
    /// RFC 6749's `error` code.
    let code: String
    let description: String
    var headers: [(name: String, value: String)] = []

    init(_ status: Int, _ code: String, _ description: String) {
        self.status = status
        self.code = code
        self.description = description
    }

    static func invalidRequest(_ description: String) -> OAuthError { OAuthError(400, "invalid_request", description) }
    static func invalidGrant(_ description: String) -> OAuthError { OAuthError(400, "invalid_grant", description) }
    static func invalidScope(_ description: String) -> OAuthError { OAuthError(400, "invalid_scope", description) }
    static let unsupportedGrantType = OAuthError(400, "unsupported_grant_type",
                                                 "grant_type must be authorization_code or refresh_token.")
    static let wrongContentType = invalidRequest("The body must be application/x-www-form-urlencoded.")

    /// RFC 6749 5.2: `401` with `WWW-Authenticate` for a client that authenticated with the
    /// `Authorization` header, `400` for one that sent its ID (and secret) in the body.
    static func invalidClient(_ description: String, basic: Bool) -> OAuthError {
        var error = OAuthError(basic ? 401 : 400, "invalid_client", description)
        if basic { error.headers = [("WWW-Authenticate", #"Basic realm="relaydeck""#)] }
        return error
    }

    /// The answer to `error` at the token or revocation endpoint: a domain refusal by its
    /// reason; anything else is the REST catalogue's (a `5xx`, which the endpoint's
    /// `failureAnswer` turns into `temporarily_unavailable` or `server_error`).
    static func from(_ error: any Error, basic: Bool) -> OAuthError? {
        if let error = error as? OAuthError { return error }
        if let error = error as? APIError, error.status == 429 {
            // A rate limit: its `Retry-After`, in OAuth's shape.
            var limited = OAuthError(429, "rate_limited", error.message)
            limited.headers = error.headers
            return limited
        }
        guard let refusal = error as? OAuthRefusal else { return nil }
        switch refusal {
        case .clientUnknown: return invalidClient("The client is unknown.", basic: basic)
        case .clientSecretWrong: return invalidClient("The client secret is wrong.", basic: basic)
        case .clientAuthMismatch:
            return invalidClient("The client must authenticate the way it registered (a public client sends no secret).",
                                 basic: basic)
        case .codeUnknown: return invalidGrant("The code is unknown or expired.")
        case .codeReused: return invalidGrant("The code was used already; the grant made from it is revoked.")
        case .codeForAnotherClient: return invalidGrant("The code was issued to another client.")
        case .redirectMismatch: return invalidGrant("redirect_uri differs from the authorization request's.")
        case .verifierWrong: return invalidGrant("code_verifier does not match the code challenge.")
        case .refreshUnknown: return invalidGrant("The refresh token is unknown, expired or revoked.")
        case .refreshReused: return invalidGrant("The refresh token was used already; the grant is revoked.")
        case .refreshForAnotherClient: return invalidGrant("The refresh token was issued to another client.")
        case .scopeEscalation: return invalidScope("scope may only name scopes of the grant.")
        }
    }

    /// A failure of the server itself (the store away or busy): RFC 6749's words for it,
    /// with the REST answer's status and `Retry-After`.
    static func failure(_ error: APIError) -> OAuthError {
        var answer = OAuthError(error.status, error.status == 503 ? "temporarily_unavailable" : "server_error", error.message)
        answer.headers = error.headers
        return answer
    }

    var response: HTTPResponse {
        var writer = JSONWriter(capacity: 96 + description.utf8.count)
        writer.beginObject()
        writer.key("error")
        writer.string(code)
        writer.key("error_description")
        writer.string(description)
        writer.endObject()
        return HTTPResponse(status: status, headers: OAuthAnswers.headers + headers, body: writer.bytes)
    }
}
