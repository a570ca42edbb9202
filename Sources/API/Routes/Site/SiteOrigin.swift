import HTTP

/// The address the site's pages and the install script give out: `PUBLIC_URL` when it is set,
/// else the scheme this server speaks and the request's `Host`. A Host header goes into a
/// shell script and into HTML, so it must be a plain host name or address and port; anything
/// else is refused rather than escaped.
struct SiteOrigin {
    let url: String
    /// Whether the address came from the request (then no shared cache may keep the answer:
    /// another client may have sent another Host).
    let fromRequest: Bool

    static let badHost: APIError = {
        APIError(400, "bad_request", "The Host header is not a host name and port; set PUBLIC_URL on the server.")
    }()

    static func of(_ request: HTTPRequest, configuration: APIConfiguration) throws(APIError) -> SiteOrigin {
        if let publicOrigin = configuration.publicOrigin {
            return SiteOrigin(url: publicOrigin, fromRequest: false)
        }
        guard let host = request.head.header("host"), isPlainHost(host) else { throw badHost }
        return SiteOrigin(url: (configuration.servesHTTPS ? "https://" : "http://") + host, fromRequest: true)
    }

    /// `name[:port]` or `[v6 address][:port]`, in letters, digits, `.`, `-`, `:`, `[`, `]`.
    static func isPlainHost(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        guard !bytes.isEmpty, bytes.count <= 261, bytes.first != UInt8(ascii: "-") else { return false }
        var inBrackets = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"):
                continue
            case UInt8(ascii: "["):
                guard !inBrackets else { return false }
                inBrackets = true
            case UInt8(ascii: "]"):
                guard inBrackets else { return false }
                inBrackets = false
            default:
                return false
            }
        }
        return !inBrackets
    }
}
