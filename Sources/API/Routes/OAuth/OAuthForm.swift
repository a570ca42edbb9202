import Crypto
import HTTP

/// The parameters of a request to the token or revocation endpoint: an
/// `application/x-www-form-urlencoded` body (RFC 6749 3.2), each parameter at most once
/// (3.1: "MUST NOT be included more than once"), and the client's credentials from the body
/// or from `Authorization: Basic` (2.3.1), never both.
struct OAuthForm {
    private var values: [String: String] = [:]
    /// The client's ID, and secret if it sent one.
    private(set) var clientID: String?
    private(set) var clientSecret: String?
    /// Whether the client used `Authorization: Basic` (its refusal is then a `401`).
    private(set) var usedBasic = false

    init(_ request: HTTPRequest) throws(OAuthError) {
        let type = request.head.header("content-type")?.split(separator: ";").first?.trimmingCharacters(in: " \t").lowercased()
        guard type == "application/x-www-form-urlencoded" else { throw .wrongContentType }
        let body = String(decoding: request.body, as: UTF8.self)
        let (parameters, problems) = QueryString.parse(Substring(body))
        guard problems.isEmpty else { throw .invalidRequest("The body is not valid percent-encoded UTF-8.") }
        for parameter in parameters {
            guard values.updateValue(parameter.value, forKey: parameter.name) == nil else {
                throw .invalidRequest("A parameter was sent more than once.")
            }
        }
        try readClient(request.head)
    }

    subscript(_ name: String) -> String? { values[name] }

    /// A required parameter.
    func required(_ name: String) throws(OAuthError) -> String {
        guard let value = values[name], !value.isEmpty else { throw .invalidRequest("\(name) is required.") }
        return value
    }

    private mutating func readClient(_ head: HTTPRequestHead) throws(OAuthError) {
        let authorizations = head.headers("authorization")
        guard authorizations.count <= 1 else { throw .invalidRequest("Authorization was sent more than once.") }
        guard let authorization = authorizations.first else {
            clientID = values["client_id"]
            clientSecret = values["client_secret"]
            return
        }
        usedBasic = true
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic", values["client_secret"] == nil,
              let decoded = Base64.decode(String(parts[1])), let text = String(validating: decoded, as: UTF8.self),
              let colon = text.firstIndex(of: ":") else {
            throw .invalidClient("Authorization must be Basic with the client's ID and secret, and alone.", basic: true)
        }
        // RFC 6749 2.3.1: both halves are form-encoded before they are joined.
        guard let id = QueryString.decode(text[..<colon].utf8[...]),
              let secret = QueryString.decode(text[text.index(after: colon)...].utf8[...]) else {
            throw .invalidClient("The Basic credentials are not valid form-encoding.", basic: true)
        }
        if let bodyID = values["client_id"], bodyID != id {
            throw .invalidClient("client_id differs from the Authorization header's.", basic: true)
        }
        clientID = id
        clientSecret = secret
    }
}
