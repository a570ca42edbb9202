import EventLoop

/// What it takes to connect: where, as whom, which database, and how TLS is used. Made from
/// a URL or keyword/value string by `PostgresSettings.parse` (`DATABASE_URL`).
///
/// The password is a secret: `description`, `redacted` and the mirror (`dump`, a debugger)
/// never show it.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var endpoint: PostgresEndpoint
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    /// `sslrootcert`: a PEM file of the CAs to trust instead of the system's.
    public var sslRootCert: String?
    /// Sent at start-up; the server shows it in `pg_stat_activity`.
    public var applicationName: String
    /// `connect_timeout` in seconds; nil: `PostgresLimits.connectTimeout`.
    public var connectTimeoutSeconds: Int?
    /// TCP keepalive on the connection (libpq's `keepalives`, `keepalives_idle`,
    /// `keepalives_interval`, `keepalives_count`); nil with `keepalives=0`.
    public var keepalive: Keepalive? = Keepalive()

    /// When an idle connection is probed and given up. The defaults are shorter than the
    /// system's (two hours), which libpq keeps: a node's LISTEN connection sends nothing while
    /// no change comes, and one dropped silently (a failover to another host, a firewall or a
    /// NAT that forgot the flow) would leave the node deaf to the others' changes; probed, it
    /// is found dead within 60 s and made again (re-reading what it missed).
    public struct Keepalive: Sendable, Equatable {
        public var idleSeconds: Int32 = 30
        public var intervalSeconds: Int32 = 10
        public var count: Int32 = 3

        public init(idleSeconds: Int32 = 30, intervalSeconds: Int32 = 10, count: Int32 = 3) {
            self.idleSeconds = idleSeconds
            self.intervalSeconds = intervalSeconds
            self.count = count
        }
    }

    public static let defaultPort: UInt16 = 5432
    /// Debian's libpq looks for the local server's socket here when no host is given.
    public static let defaultSocketDirectory = "/var/run/postgresql"

    public init(endpoint: PostgresEndpoint, user: String, password: String? = nil, database: String? = nil,
                sslMode: SSLMode = .prefer, sslRootCert: String? = nil, applicationName: String = "relaydeckd",
                connectTimeoutSeconds: Int? = nil) {
        self.endpoint = endpoint
        self.user = user
        self.password = password
        self.database = database ?? user
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
        self.applicationName = applicationName
        self.connectTimeoutSeconds = connectTimeoutSeconds
    }

    /// The host name a TLS certificate must carry (`verify-full`), and SNI.
    var tlsServerName: String? {
        guard case .tcp(let host, _) = endpoint else { return nil }
        return host
    }

    /// As a URL with the password left out, for `check-config` and log lines.
    public var redacted: String {
        var text = "postgres://" + Self.escaped(user)
        if password != nil { text += ":(hidden)" }
        text += "@"
        switch endpoint {
        case .tcp(let host, let port):
            text += (host.contains(":") ? "[\(host)]" : Self.escaped(host)) + ":\(port)"
            text += "/" + Self.escaped(database) + "?sslmode=" + sslMode.rawValue
        case .unix(let directory, let port):
            text += "/" + Self.escaped(database) + "?host=" + Self.escaped(directory) + "&port=\(port)&sslmode=" + sslMode.rawValue
        }
        if let sslRootCert { text += "&sslrootcert=" + Self.escaped(sslRootCert) }
        return text
    }

    public var description: String { redacted }

    public var customMirror: Mirror {
        Mirror(self, children: ["settings": redacted])
    }

    /// Percent-encodes what a URL part cannot hold as is.
    static func escaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
