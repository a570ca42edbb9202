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

    /// The session's secret from the `Cookie` header(s), nil when none is sent. The cookie of
    /// the other scheme is not read: a `__Host-` cookie over HTTP, or a plain one where the
    /// origin is HTTPS, is not this server's.
    static func secret(in head: HTTPRequestHead, secure: Bool) -> String? {
        let wanted = name(secure: secure)
        for header in head.headers("cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == wanted {
                    var value = trimmed[trimmed.index(after: equals)...]
                    while value.last == " " || value.last == "\t" { value = value.dropLast() }
                    return String(value)
                }
            }
        }
        return nil
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
    /// the server's own `Origin` (`403` otherwise, checked before the session is looked up);
    /// nil when no cookie is sent; `401` when the cookie names no live session.
    static func session(of request: HTTPRequest, context: APIContext) throws -> WebSession? {
        let publicOrigin = context.configuration.publicOrigin
        guard let secret = secret(in: request.head, secure: secure(context.configuration)) else { return nil }
        if request.method != .get && request.method != .head {
            try OwnOrigin.require(request.head, publicOrigin: publicOrigin)
        }
        guard let session = try context.services.webSignIn.session(secret: secret) else { throw APIError.unauthorized }
        return session
    }
}
