import HTTP
import Relaydeck

/// The web session's cookie: `__Host-relaydeck_session` with `Secure` where the origin is
/// HTTPS (`PUBLIC_URL`), `relaydeck_session` without it over plain HTTP (`localhost`, which
/// browsers treat as secure enough for the console and for passkeys). Always `HttpOnly`
/// (no script reads it), `SameSite=Strict` and `Path=/`.
enum WebCookie {
    static func name(secure: Bool) -> String {
        secure ? "__Host-relaydeck_session" : "relaydeck_session"
    }

    /// A request with more session cookies than this is not a browser's (one per path and
    /// domain that set it): the first few are tried, the rest ignored.
    static let maxTried = 4

    /// The values of the session cookie in the `Cookie` header(s), in order, at most
    /// `maxTried`; empty when none is sent. A browser sends several of one name when several
    /// were set (another server on another port of `localhost` shares the cookie jar: cookies
    /// do not keep ports apart), so each is tried, not just the first. The cookie of the
    /// other scheme is not read: a `__Host-` cookie over HTTP, or a plain one where the
    /// origin is HTTPS, is not this server's.
    static func secrets(in head: HTTPRequestHead, secure: Bool) -> [String] {
        let wanted = name(secure: secure)
        var found: [String] = []
        for header in head.headers("cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == wanted {
                    var value = trimmed[trimmed.index(after: equals)...]
                    while value.last == " " || value.last == "\t" { value = value.dropLast() }
                    found.append(String(value))
                    if found.count == maxTried { return found }
                }
            }
        }
        return found
    }

    /// `Set-Cookie` for a new session. No `Max-Age`: the server ends the session after 30 days
    /// unused, and a browser session cookie leaves with the browser's own session only where
    /// the person asked for that.
    static func set(_ secret: String, secure: Bool) -> (name: String, value: String) {
        ("Set-Cookie", "\(name(secure: secure))=\(secret); Path=/; HttpOnly\(secure ? "; Secure" : ""); SameSite=Strict")
    }

    /// `Set-Cookie` that removes the cookie (sign-out).
    static func clear(secure: Bool) -> (name: String, value: String) {
        ("Set-Cookie", "\(name(secure: secure))=; Path=/; Max-Age=0; HttpOnly\(secure ? "; Secure" : ""); SameSite=Strict")
    }

    /// Whether the cookie is the `__Host-`, `Secure` one: when the server's origin is HTTPS,
    /// that is `PUBLIC_URL`'s scheme, else whether the server itself speaks HTTPS.
    static func secure(_ configuration: APIConfiguration) -> Bool {
        guard let publicOrigin = configuration.publicOrigin else { return configuration.servesHTTPS }
        return publicOrigin.lowercased().hasPrefix("https://")
    }

    /// The live session of the request's cookie. A request that changes something must carry
    /// the server's own `Origin` (`403` otherwise, checked before the session is looked up),
    /// and every request the server's own `Host` (`OwnOrigin.checkHost`); nil when no cookie
    /// is sent; `401` when no cookie of the request names a live session. With several, the
    /// first that names a live session is the one, so a stray cookie (stale, or set by a page
    /// on another port) cannot sign the person out. Live sessions of two accounts are `401`:
    /// which one the person signed in with cannot be told, and taking the wrong one would
    /// sign them in as someone else (a page could plant its own account's session).
    static func session(of request: HTTPRequest, context: APIContext) async throws -> WebSession? {
        let secrets = secrets(in: request.head, secure: secure(context.configuration))
        guard !secrets.isEmpty else { return nil }
        try OwnOrigin.checkHost(request.head, context.configuration)
        if request.method != .get && request.method != .head {
            try OwnOrigin.require(request.head, context.configuration)
        }
        var found: WebSession?
        for secret in secrets {
            guard let session = try await context.services.webSignIn.session(secret: secret) else { continue }
            guard let first = found else {
                found = session
                continue
            }
            if first.accountID != session.accountID { throw APIError.unauthorized }
        }
        guard let found else { throw APIError.unauthorized }
        return found
    }
}
