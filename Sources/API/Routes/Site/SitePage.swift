import Crypto
import HTTP

/// The frame of every HTML page of the site and the headers of every site answer: a strict
/// Content-Security-Policy (no script at all; the one inline style allowed by its hash, not by
/// `unsafe-inline`), `nosniff`, no framing, no referrer.
enum SitePage {
    static let style = """
        body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
        h1{font-size:1.7rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2rem}h3{font-size:1.05rem}
        code,pre{font:14px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f2f2f5;border-radius:4px}
        code{padding:0 .25rem}pre{padding:.7rem;overflow-x:auto}
        table{border-collapse:collapse;width:100%;font-size:14px}td,th{border-bottom:1px solid #ddd;padding:.3rem .4rem;text-align:left;vertical-align:top}
        nav a{margin-right:1rem}.on{color:#1a7f37;font-weight:600}.off{color:#6e6e73}
        @media (prefers-color-scheme:dark){body{color:#f5f5f7;background:#1d1d1f}code,pre{background:#2c2c2e}td,th{border-color:#3a3a3c}a{color:#6cb4ff}}
        """

    /// `'sha256-...'` of the inline style: the browser applies that style and no other.
    static let styleSource = "'sha256-" + Base64.encode(SHA256.hash(style)) + "'"

    static let contentSecurityPolicy = "default-src 'none'; style-src \(styleSource); img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func headers(contentType: String, origin: SiteOrigin) -> [(name: String, value: String)] {
        [
            ("Content-Type", contentType),
            ("Content-Security-Policy", contentSecurityPolicy),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "no-referrer"),
            // A page built from the Host header is this client's alone.
            ("Cache-Control", origin.fromRequest ? "no-store" : "no-cache"),
        ]
    }

    static func response(title: String, body: String, origin: SiteOrigin) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            <nav><a href="/">Home</a><a href="/docs">Docs</a><a href="/docs/agents">Connect an agent</a></nav>
            \(body)
            </body>
            </html>

            """
        return HTTPResponse(status: 200, headers: headers(contentType: "text/html; charset=utf-8", origin: origin),
                            body: Array(html.utf8))
    }

    /// Text for HTML element content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
