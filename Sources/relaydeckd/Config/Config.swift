import API
import EventLoop
import HTTP
import Logging
import Postgres
import PostgresStore
import Relaydeck

/// Every setting of the daemon, read once from the environment at start and checked.
///
/// Build it with `Config.load(environment:readFile:)`; each variable, its form and its
/// default are documented on the property it sets. An empty value counts as unset, so a
/// systemd `EnvironmentFile` line like `APNS_KEY_ID=` switches nothing on.
///
/// Secrets (`APP_TOTP_SECRET`, `APNS_PRIVATE_KEY`) can come three ways, see `load`: the
/// variable itself, `NAME_FILE` (a path), or a systemd credential named `NAME`.
struct Config: Sendable {
    /// Where the server listens.
    enum ListenAddress: Sendable, Equatable {
        case tcp(host: IPAddress, port: UInt16)
        case unix(path: String)
    }

    /// Push through APNs; present only when all four of `APNS_TEAM_ID`, `APNS_KEY_ID`,
    /// `APNS_PRIVATE_KEY` and `APNS_BUNDLE_ID` are set.
    struct APNs: Sendable, Equatable {
        /// `APNS_TEAM_ID`: 10 of [A-Z0-9].
        var teamID: String
        /// `APNS_KEY_ID`: 10 of [A-Z0-9].
        var keyID: String
        /// `APNS_PRIVATE_KEY` or `APNS_PRIVATE_KEY_FILE`: the `.p8` PEM text (PKCS #8,
        /// `-----BEGIN PRIVATE KEY-----`). Secret.
        var privateKeyPEM: [UInt8]
        /// `APNS_BUNDLE_ID`: the topic for iOS devices.
        var bundleID: String
        /// `APNS_WATCH_BUNDLE_ID`: the topic for `watchos` devices; nil sends them none.
        var watchBundleID: String?
        /// `APNS_PRODUCTION_URL`, default `https://api.push.apple.com`.
        var productionURL: String
        /// `APNS_SANDBOX_URL`, default `https://api.sandbox.push.apple.com`.
        var sandboxURL: String
        /// `APNS_CA_FILE`: a PEM file of extra trusted CAs, for tests against a mock.
        var caFile: String?
    }

    /// `LISTEN`: `host:port`, `[v6]:port` or `unix:/abs/path`; host an IP literal or
    /// `localhost` (= 127.0.0.1); port 0...65535 (0 = any free port, for tests).
    /// Default `127.0.0.1:8080`.
    var listen: ListenAddress = .tcp(host: IPAddress(ipv4: 0x7F00_0001), port: 8080)
    /// `DATABASE_PATH`, default `./relaydeck.db`. `:memory:` gives a database that lives
    /// only as long as the process: for tests.
    var databasePath = "./relaydeck.db"
    /// `DURABILITY`: `normal` (default) or `full`, what an acknowledged write survives (the
    /// README's "The store"); `DATABASE_SYNCHRONOUS` (`NORMAL`, `FULL`) is its older name,
    /// still read (`ConfigReader.durability`).
    var durability = Durability.normal
    /// `DATABASE_URL` (or `_FILE`, or the credential): PostgreSQL's connection string,
    /// checked at start. Secret (it holds the password). With it set, the server and the
    /// operator's store commands use that database (`PostgresWiring`, `PostgresStartup`).
    /// Nil: SQLite at `databasePath`.
    var databaseURL: PostgresSettings?
    /// `DATABASE_CONNECTIONS`: how many connections to PostgreSQL this process keeps (each
    /// request's body holds one while it runs), 1...100, default 4; only with `DATABASE_URL`.
    var databaseConnections = PostgresSessionStore.defaultConnections
    /// `PUBLIC_URL`: the server's own origin, `http(s)://host[:port]`, normalized as
    /// browsers send `Origin` (lowercase scheme and host, no default port, no trailing `/`).
    /// Nil: taken from each request's `Host` header.
    var publicURL: String?
    /// `RATE_LIMIT_REQUESTS_PER_MINUTE`, default the catalogue's (`Limits.Rate`), 1...1_000_000.
    var rateLimitRequestsPerMinute = Limits.Rate.requests.count
    /// `RATE_LIMIT_ACCOUNTS_PER_HOUR`, default the catalogue's, 1...1_000_000.
    var rateLimitAccountsPerHour = Limits.Rate.accounts.count
    /// `RATE_LIMIT_CHALLENGES_PER_HOUR`, default the catalogue's, 1...1_000_000.
    var rateLimitChallengesPerHour = Limits.Rate.challenges.count
    /// `ACCOUNT_CREATION`: `open` (default: anyone may `POST /v1/accounts`) or `closed`
    /// (`403`; the operator makes accounts with `relaydeckd account create`).
    var accountCreationOpen = true
    /// `ACCOUNT_STORAGE_LIMIT`: the bytes of text an account may keep (`StorageQuota`),
    /// default 256 MiB, 1 KiB...1024 GiB.
    var accountStorageLimit = StorageQuota.defaultLimit
    /// `TRUSTED_PROXIES`: addresses and CIDR ranges, separated by commas and/or spaces, whose
    /// `X-Forwarded-For` is believed. Default none.
    var trustedProxies: [CIDR] = []
    /// `WEB_PUSH_ALLOW_PRIVATE_HOSTS` (`true`/`false`, default false): Web Push subscriptions
    /// may name push services on this machine or its networks.
    var webPushAllowPrivateHosts = false
    /// `WEB_PUSH_SUBJECT`: the contact push services see in the VAPID token (`mailto:` or
    /// `https:`); nil for `PUBLIC_URL` (see `webPushContact`).
    var webPushSubject: String?
    /// `WEB_PUSH_CA_FILE`: a PEM file of extra trusted CAs for push services (tests' mock).
    var webPushCAFile: String?
    /// `OAUTH_ALLOW_PRIVATE_HOSTS` (`true`/`false`, default false): OAuth client metadata
    /// documents may be fetched from this machine or its networks.
    var oauthAllowPrivateHosts = false
    /// `OAUTH_CA_FILE`: a PEM file of extra trusted CAs for client metadata documents (tests).
    var oauthCAFile: String?

    /// The VAPID `sub`: `WEB_PUSH_SUBJECT`, else `PUBLIC_URL` when it is an `https:` URL, else
    /// a placeholder address. RFC 8292 asks for a `mailto:` or `https:` URI, and push services
    /// that check (Mozilla's, Apple's) refuse every push of a token whose `sub` is an `http:`
    /// URL, so a `PUBLIC_URL` of plain HTTP (a server on a LAN) is never the contact.
    var webPushContact: String {
        if let webPushSubject { return webPushSubject }
        if let publicURL, publicURL.hasPrefix("https://") { return publicURL }
        return "mailto:relaydeck@localhost"
    }

    /// Why Apple's push service (Safari, iPhone) would refuse `webPushContact` (it answers
    /// `403 BadJwtToken` to a `sub` that is not `mailto:` or `https:`, or names localhost);
    /// nil when it looks usable.
    var webPushContactProblem: String? {
        let contact = webPushContact
        let host: Substring
        if contact.hasPrefix("mailto:") {
            host = contact.split(separator: "@").last ?? ""
        } else if contact.hasPrefix("https://") {
            host = contact.dropFirst(8).split(separator: "/").first?.split(separator: ":").first ?? ""
        } else {
            return "it is not a mailto: address or an https: URL"
        }
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") || name.hasSuffix(".local") || name.first == "["
            || name.allSatisfy({ $0.isNumber || $0 == "." }) {
            return "it names \(name), which is not a public name"
        }
        return nil
    }
    /// `APP_TOTP_SECRET` (or `_FILE`, or the credential): base32, at least 16 bytes decoded.
    /// Turns the app code check on. Secret.
    var appTOTPSecret: [UInt8]?
    /// `APP_ATTEST_APP_IDS`: comma-separated `TEAMID.bundle.id`. Turns App Attest on.
    var appAttestAppIDs: [String] = []
    /// `APP_ATTEST_ENVIRONMENT`: `production` (default) or `development`.
    var appAttestEnvironment = "production"
    /// `APP_ATTEST_ROOT_CA_FILE`: a PEM certificate that replaces Apple's pinned App
    /// Attestation Root CA; for tests.
    var appAttestRootCAFile: String?
    /// Push; nil when off.
    var apns: APNs?
    /// `TLS_CERT_FILE` and `TLS_KEY_FILE`: serve HTTPS directly; both or neither.
    var tlsCertFile: String?, tlsKeyFile: String?
    /// `METRICS_TOKEN` (or `_FILE`, or the credential): the bearer token of `GET /metrics`;
    /// at least 16 visible ASCII characters. Nil: no `/metrics`. Secret.
    var metricsToken: [UInt8]?
    /// `METRICS_LISTEN`: a second address, in the form of `LISTEN`, that serves only
    /// `GET /metrics` (with no token unless `METRICS_TOKEN` is set). Nil: off.
    var metricsListen: ListenAddress?
    /// `LOG_LEVEL`: debug, info (default), warn or error.
    var logLevel = LogLevel.info
    /// `LOG_FORMAT`: text (default) or json.
    var logFormat = LogFormat.text
    /// `MAX_CONNECTIONS`, default the HTTP server's (`Limits.server`), 1...1_000_000.
    var maxConnections = Limits.server.maxConnections
    /// `HTTP_HEADER_TIMEOUT` in seconds with up to 3 decimals, default the HTTP server's (10),
    /// 0.05...3600. It bounds the body's start too.
    var headerTimeoutMillis = Int(Limits.server.headerTimeout.milliseconds)
    /// `HTTP_IDLE_TIMEOUT` in seconds with up to 3 decimals, default the HTTP server's (75),
    /// 0.05...86400.
    var idleTimeoutMillis = Int(Limits.server.idleTimeout.milliseconds)
    /// `SHUTDOWN_TIMEOUT` in seconds with up to 3 decimals, default 5, 0...3600: how long
    /// open requests may finish after SIGTERM.
    var shutdownTimeoutMillis = 5_000
    /// `PUSH_LEASE_SECONDS`, whole seconds, default 120, 1...3600: how long a push claimed by
    /// a node is its own (`Outbox.leaseMillis`), and with PostgreSQL the longest wait between
    /// two looks at the outboxes. A node that dies leaves its claimed pushes to the others
    /// for this long; a lease shorter than the longest send (APNs: 30 s) may push twice.
    var pushLeaseMillis = Int(Outbox.defaultLeaseMillis)
}
