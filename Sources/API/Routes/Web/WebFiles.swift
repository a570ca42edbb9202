import HTTP
import WebAssets

/// The web console's files under `/app/` (`web/`, embedded at build time by the
/// `WebAssetsPlugin`). They are not routes of the router: a path below `/app/` has any depth,
/// and these answers need no credential, no store and no record (so they never reach the
/// activity log or the request log).
enum WebFiles {
    /// Every answer under `/app` carries these: the page runs only its own scripts and styles
    /// (no inline code, no eval), is never framed, sends no referrer, and the browser takes
    /// each file as the type it is served with.
    static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    private static let prefix = Array("/app".utf8)

    /// The answer for `head` when its path is `/app` or below it; nil for every other path.
    static func answer(_ head: HTTPRequestHead, assets: [String: WebAsset] = WebAsset.all) -> HTTPResponse? {
        let path = head.pathBytes
        guard path.starts(with: prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        if rest.isEmpty {
            // `/app` itself: the page's relative URLs need the trailing slash.
            return HTTPResponse(status: 308, headers: securityHeaders + [("Location", "/app/")])
        }
        guard rest.first == UInt8(ascii: "/") else { return nil }
        guard head.method == .get || head.method == .head else {
            var refusal = APIError.methodNotAllowed(allow: [.get, .head]).response
            refusal.headers += securityHeaders
            return refusal
        }
        var name = String(decoding: rest.dropFirst(), as: UTF8.self)
        if name.isEmpty { name = "index.html" }
        // Names are looked up exactly: `..`, `%2e` or a doubled slash match no file.
        guard let asset = assets[name] else {
            var missing = APIError.notFound.response
            missing.headers += securityHeaders
            return missing
        }
        // `no-cache`: the browser keeps the file but asks again (a `304` when unchanged), so
        // a new binary's page is seen at the next load; the service worker caches the shell.
        var headers = securityHeaders + [("ETag", asset.etag), ("Cache-Control", "no-cache")]
        if let tags = head.header("if-none-match"), Self.matches(tags, asset.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.append(("Content-Type", asset.contentType))
        // HEAD: the connection sends the head of this answer without its body.
        return HTTPResponse(status: 200, headers: headers, body: asset.bytes)
    }

    /// `If-None-Match`: `*` or a comma list of tags, weak ones compared weakly (RFC 9110 13.1.2).
    static func matches(_ field: String, _ etag: String) -> Bool {
        for tag in field.split(separator: ",") {
            var tag = tag.trimmingCharacters(in: " \t")
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag { return true }
        }
        return false
    }
}
