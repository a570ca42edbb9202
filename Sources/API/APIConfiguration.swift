import EventLoop

/// What the API takes from the operator's configuration.
public struct APIConfiguration: Sendable {
    /// `RATE_LIMIT_REQUESTS_PER_MINUTE` (`Limits.Rate` holds the defaults)
    public var requestsPerMinute = Limits.Rate.requests.count
    /// `RATE_LIMIT_ACCOUNTS_PER_HOUR`
    public var accountsPerHour = Limits.Rate.accounts.count
    /// `RATE_LIMIT_CHALLENGES_PER_HOUR`
    public var challengesPerHour = Limits.Rate.challenges.count
    /// `ACCOUNT_CREATION`: false answers `POST /v1/accounts` and `POST /v1/attest/challenge`
    /// with `403`; the operator makes accounts with `relaydeckd account create`.
    public var accountCreationOpen = true
    /// `TRUSTED_PROXIES`
    public var trustedProxies: [CIDR] = []
    /// The decoded `APP_TOTP_SECRET`; nil turns the app code check off.
    public var appCodeSecret: [UInt8]?
    /// `APP_ATTEST_APP_IDS` and the settings that go with it; nil turns App Attest off.
    public var appAttest: AppAttestSettings?
    /// `PUBLIC_URL`, the server's own origin; nil takes it from the `Host` header (the MCP
    /// endpoint's `Origin` check).
    public var publicOrigin: String?
    /// OAuth's issuer (RFC 8414): `PUBLIC_URL`; nil turns OAuth off (issue 24: tokens are
    /// bound to a stable name, never to the `Host` a client sends).
    public var oauthIssuer: String? { publicOrigin }
    /// The protected resource (RFC 9728, RFC 8707): `PUBLIC_URL/mcp`, every access token's
    /// audience. The REST routes an API key may use take the same tokens: the same server,
    /// acting for the same key.
    public var oauthResource: String? { publicOrigin.map { $0 + "/mcp" } }

    /// The version the MCP endpoint names in its `serverInfo`.
    public var serverVersion = "0.0.0"
    /// Whether push is configured (`APNS_*`); the home page says so, never the settings.
    public var pushEnabled = false
    /// Whether the server itself speaks HTTPS (`TLS_CERT_FILE`): the scheme of the site's
    /// address when `PUBLIC_URL` is not set.
    public var servesHTTPS = false

    /// `METRICS_TOKEN`: `GET /metrics` answers with this bearer token; nil leaves `/metrics`
    /// out of the routes (`404`). Secret.
    public var metricsToken: [UInt8]?

    /// `WEB_PUSH_ALLOW_PRIVATE_HOSTS`: subscriptions may name push services on this machine
    /// or its networks (the tests' mock service, a push service on the LAN).
    public var webPushAllowsPrivateHosts = false

    public init() {}
}
