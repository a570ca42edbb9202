import HTTP
import JSON
import Logging
import Relaydeck

/// The one catalogue of errors of the REST surface (`overview.md#errors`): each case has its
/// status, its `code` and its message, and becomes a response here and nowhere else.
public struct APIError: Error, Sendable {
    public let status: Int
    public let code: String
    public let message: String
    public var fields: [FieldProblem] = []
    /// Fields with a problem beyond those in `fields` (`FieldNames.maxListed`).
    public var moreFields = 0
    public var headers: [(name: String, value: String)] = []
    /// The message already tells a model what to do instead: an MCP tool error adds nothing.
    public var saysWhatToDo = false
    /// The scope an `insufficient_scope` refusal names: a request sent with an OAuth access
    /// token is told it in `WWW-Authenticate` too (RFC 6750 3.1, `BearerChallenge`).
    public var missingScope: Scope?

    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static let notFound = APIError(404, "not_found", "Not found.")
    static let badJSON = APIError(400, "bad_request", "The body is not valid JSON.")
    static let unauthorized = APIError(401, "unauthorized", "The credential is missing or wrong.")
    static let appCodeInvalid = APIError(401, "app_code_invalid", "The app code is missing or wrong.")
    /// `app-integrity.md#create-the-account`: App Attest is on and the body has no `attestation`.
    static let attestationRequired = APIError(401, "attestation_required", "This server needs an App Attest attestation.")
    /// `app-integrity.md#create-the-account`: one answer for every refused attestation (an
    /// unknown, used or expired challenge, a failed check, a key that has an account), so the
    /// answer does not tell which check failed.
    static let attestationInvalid = APIError(401, "attestation_invalid", "The attestation is not valid.")
    static let forbiddenForKey = APIError(403, "forbidden", "An API key cannot use this route.")
    static let forbiddenForAccount = APIError(403, "forbidden", "An account token cannot use this route.")
    /// The credential's type may use the route, but it lacks the scope the route or tool
    /// needs (issue 24). The message names the scope and who can give it; an MCP tool error
    /// carries it as it is.
    static func insufficientScope(_ scope: Scope, for what: String = "this route") -> APIError {
        var error = APIError(403, "insufficient_scope",
                             "The key lacks the scope \(scope.rawValue), which \(what) needs. The person can give the key this scope in the web console.")
        error.saysWhatToDo = true
        error.missingScope = scope
        return error
    }
    /// `ACCOUNT_CREATION=closed`: this server makes no account for a client.
    static let accountCreationClosed = APIError(403, "forbidden",
        "Accounts on this server are made by its operator (relaydeckd account create), not on request.")
    static let internalError = APIError(500, "internal", "Internal server error.")
    /// The OAuth routes while `PUBLIC_URL` is not set: tokens need a stable issuer and
    /// resource, which the `Host` header a client sends is not.
    static let oauthOff = APIError(404, "not_found",
        "OAuth is off on this server: its operator sets PUBLIC_URL to turn it on. Use an API key meanwhile.")

    /// A defect of the server itself (a route that names a parameter its pattern lacks):
    /// logged, and a plain 500.
    static func defect(_ what: String) -> APIError {
        Log.error("defect", ["what": what])
        return internalError
    }

    static func methodNotAllowed(allow: [HTTPMethod]) -> APIError {
        var error = APIError(405, "method_not_allowed", "Method not allowed.")
        error.headers = [("Allow", allow.map(\.name).joined(separator: ", "))]
        return error
    }

    static func rateLimited(retryAfter seconds: Int) -> APIError {
        var error = APIError(429, "rate_limited", "Too many requests. Try again in \(seconds) seconds.")
        error.headers = [("Retry-After", String(seconds))]
        return error
    }

    static func unavailable(retryAfter seconds: Int) -> APIError {
        var error = APIError(503, "unavailable", "The store is unavailable. Try again in \(seconds) seconds.")
        error.headers = [("Retry-After", String(seconds))]
        return error
    }

    static func validation(_ problems: [FieldProblem]) -> APIError {
        // One message per field, names in order, so the answer does not depend on the order
        // of the body. A name is cut and the list bounded (`FieldNames`), so the answer stays
        // small whatever names the client sent.
        var byField: [String: String] = [:]
        for problem in problems {
            let name = FieldNames.shown(problem.field)
            if byField[name] == nil { byField[name] = problem.message }
        }
        let listed = Self.first(FieldNames.maxListed, of: byField.keys)
        let more = byField.count - listed.count
        let tail = more > 0 ? ", and \(TextRules.grouped(more)) more" : ""
        var error = APIError(422, "validation_failed", "Invalid fields: \(listed.joined(separator: ", "))\(tail).")
        error.fields = listed.map { FieldProblem($0, byField[$0]!) }
        error.moreFields = more
        return error
    }

    /// The `count` smallest names, in order, without sorting them all (a body may have
    /// tens of thousands of unknown fields).
    private static func first(_ count: Int, of names: Dictionary<String, String>.Keys) -> [String] {
        var kept: [String] = []
        for name in names {
            if kept.count == count, let last = kept.last, name >= last { continue }
            let at = kept.firstIndex { name < $0 } ?? kept.endIndex
            kept.insert(name, at: at)
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }

    /// The answers of the HTTP layer, for requests refused before routing.
    static func refusal(status: Int) -> APIError {
        switch status {
        case 408: APIError(408, "bad_request", "The request took too long to arrive.")
        case 413: APIError(413, "bad_request", "The body is larger than 1 MB.")
        case 414: APIError(414, "bad_request", "The request target is too long.")
        case 431: APIError(431, "bad_request", "The request headers are too large.")
        case 501: APIError(501, "bad_request", "The transfer coding is not supported.")
        case 505: APIError(505, "bad_request", "The HTTP version is not supported.")
        case 503:
            {
                var error = APIError(503, "unavailable", "The server has too many connections.")
                error.headers = [("Retry-After", "1")]
                return error
            }()
        case 500: internalError
        default: APIError(400, "bad_request", "The request is malformed.")
        }
    }

    /// Any error thrown while answering, as the client should see it. Anything that is not
    /// one of ours is a defect: logged, and a plain 500.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as DomainError:
            switch error {
            case .notFound(let message): return APIError(404, "not_found", message)
            case .conflict(let message): return APIError(409, "conflict", message)
            case .storageFull(let message):
                var error = APIError(409, "conflict", message)
                error.saysWhatToDo = true
                return error
            case .validation(let problems): return validation(problems)
            }
        case is AttestedKeyInUse:
            return attestationInvalid
        case StoreError.unavailable(let seconds):
            return unavailable(retryAfter: seconds)
        case StoreError.failure(let detail):
            Log.error("store failure", ["error": detail])
            return internalError
        default:
            Log.error("unexpected error", ["error": String(describing: error)])
            return internalError
        }
    }

    var response: HTTPResponse {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        if !fields.isEmpty {
            writer.key("fields")
            writer.beginObject()
            for problem in fields {
                writer.key(problem.field)
                writer.string(problem.message)
            }
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return .json(status, writer.bytes, headers: headers)
    }
}
