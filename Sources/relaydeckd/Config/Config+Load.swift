import API
import Crypto
import EventLoop
import HTTP
import Logging
import PostgresStore
import Relaydeck

extension Config {
    /// The configuration in `environment`, checked. The first bad value throws the one
    /// `ConfigError` that `main` prints before exiting; variables are checked in the order
    /// of `Config`'s properties.
    ///
    /// `readFile` reads `_FILE` paths, systemd credentials and the PEM files that must be
    /// readable at start; tests inject one. A missing credential must throw a
    /// `FileReadError` whose `isNotFound` is true.
    ///
    /// Secrets: `APP_TOTP_SECRET` and `APNS_PRIVATE_KEY` each come from the variable, from
    /// `NAME_FILE` (a relative path resolves against `$CREDENTIALS_DIRECTORY` when set, else
    /// the working directory), or, when neither is set, from `$CREDENTIALS_DIRECTORY/NAME`
    /// if that file exists. See `ConfigReader.secret(_:)`.
    static func load(environment: [String: String], readFile: (String) throws -> [UInt8] = Config.readFileFromDisk) throws(ConfigError) -> Config {
        try withoutActuallyEscaping(readFile) { readFile throws(ConfigError) in
            try ConfigReader(environment: environment, readFile: readFile).config()
        }
    }
}

extension ConfigReader {
    static let limitRange = 1...1_000_000
    /// `ACCOUNT_STORAGE_LIMIT`: from 1 KiB (for tests) to 1024 GiB.
    static let storageLimitRange = (1 << 10)...(1 << 40)
    /// `PUSH_LEASE_SECONDS`: from a second (for tests) to an hour.
    static let pushLeaseRange = 1...3600

    /// `WEB_PUSH_SUBJECT`: a `mailto:` address or an `https:` URL (RFC 8292's `sub`).
    func webPushSubject() throws(ConfigError) -> String? {
        guard let text = value("WEB_PUSH_SUBJECT") else { return nil }
        let mail = text.hasPrefix("mailto:") && text.dropFirst(7).contains("@")
        let web = text.hasPrefix("https://") && text.utf8.count > 8
        guard (mail || web) && text.utf8.count <= 512 && !text.contains(where: { $0.isWhitespace }) else {
            throw ConfigError("WEB_PUSH_SUBJECT", "must be a mailto: address or an https: URL (got \(ConfigError.quoted(text)))")
        }
        return text
    }

    /// `DURABILITY`, or `DATABASE_SYNCHRONOUS`, the name of the same setting before it
    /// (`NORMAL` is `normal`, `FULL` is `full`), so that an install configured with it keeps
    /// its choice. Both set: they must say the same, else the start stops rather than pick one.
    func durability() throws(ConfigError) -> Durability {
        var named: Durability?
        var older: Durability?
        if value("DURABILITY") != nil {
            named = Durability(rawValue: try choice("DURABILITY", ["normal", "full"], default: "normal"))
        }
        if value("DATABASE_SYNCHRONOUS") != nil {
            older = Durability(rawValue: try choice("DATABASE_SYNCHRONOUS", ["NORMAL", "FULL"], default: "NORMAL").lowercased())
        }
        if let named, let older, named != older {
            throw ConfigError("DURABILITY", "is \(named.rawValue), but DATABASE_SYNCHRONOUS, its older name, says "
                              + "\(older.rawValue.uppercased()); set one of them")
        }
        return named ?? older ?? .normal
    }

    func config() throws(ConfigError) -> Config {
        var config = Config()
        if let text = value("LISTEN") {
            do {
                config.listen = try ListenSyntax.parse(text)
            } catch {
                throw ConfigError("LISTEN", "\(error.message) (got \(ConfigError.quoted(text)))")
            }
        }
        config.databasePath = value("DATABASE_PATH") ?? config.databasePath
        config.durability = try durability()
        config.databaseURL = try databaseURL()
        if config.databaseURL == nil {
            try refuse(["DATABASE_CONNECTIONS"], while: "the store is SQLite (DATABASE_URL is not set)")
        }
        config.databaseConnections = try integer("DATABASE_CONNECTIONS", default: PostgresSessionStore.defaultConnections,
                                                 in: PostgresSessionStore.connectionsRange)
        config.publicURL = try origin("PUBLIC_URL", schemes: ["https", "http"])
        config.rateLimitRequestsPerMinute = try integer("RATE_LIMIT_REQUESTS_PER_MINUTE", default: Limits.Rate.requests.count, in: Self.limitRange)
        config.rateLimitAccountsPerHour = try integer("RATE_LIMIT_ACCOUNTS_PER_HOUR", default: Limits.Rate.accounts.count, in: Self.limitRange)
        config.rateLimitChallengesPerHour = try integer("RATE_LIMIT_CHALLENGES_PER_HOUR", default: Limits.Rate.challenges.count, in: Self.limitRange)
        config.accountCreationOpen = try choice("ACCOUNT_CREATION", ["open", "closed"], default: "open") == "open"
        config.accountStorageLimit = try bytes("ACCOUNT_STORAGE_LIMIT", default: StorageQuota.defaultLimit, in: Self.storageLimitRange)
        config.trustedProxies = try trustedProxies()
        config.webPushAllowPrivateHosts = try choice("WEB_PUSH_ALLOW_PRIVATE_HOSTS", ["true", "false"], default: "false") == "true"
        config.webPushSubject = try webPushSubject()
        config.webPushCAFile = try file("WEB_PUSH_CA_FILE", containing: "-----BEGIN CERTIFICATE-----", what: "PEM certificate")
        config.oauthAllowPrivateHosts = try choice("OAUTH_ALLOW_PRIVATE_HOSTS", ["true", "false"], default: "false") == "true"
        config.oauthCAFile = try file("OAUTH_CA_FILE", containing: "-----BEGIN CERTIFICATE-----", what: "PEM certificate")
        config.appTOTPSecret = try totpSecret()
        config.appAttestAppIDs = try appAttestAppIDs()
        if config.appAttestAppIDs.isEmpty {
            try refuse(["APP_ATTEST_ENVIRONMENT", "APP_ATTEST_ROOT_CA_FILE"], while: "App Attest is off (APP_ATTEST_APP_IDS is not set)")
        }
        config.appAttestEnvironment = try choice("APP_ATTEST_ENVIRONMENT", ["production", "development"], default: "production")
        config.appAttestRootCAFile = try file("APP_ATTEST_ROOT_CA_FILE", containing: "-----BEGIN CERTIFICATE-----", what: "PEM certificate")
        config.apns = try apns()
        (config.tlsCertFile, config.tlsKeyFile) = try tls()
        config.metricsToken = try metricsToken()
        if let text = value("METRICS_LISTEN") {
            do {
                config.metricsListen = try ListenSyntax.parse(text)
            } catch {
                throw ConfigError("METRICS_LISTEN", "\(error.message) (got \(ConfigError.quoted(text)))")
            }
            // Port 0 twice is two free ports, not one address.
            if config.metricsListen == config.listen, case .tcp(_, let port)? = config.metricsListen, port != 0 {
                throw ConfigError("METRICS_LISTEN", "is the address of LISTEN; give the metrics an address of their own, or use METRICS_TOKEN on the main one")
            }
        }
        let level = try choice("LOG_LEVEL", LogLevel.allCases.map(\.name), default: "info")
        config.logLevel = LogLevel(name: level) ?? .info
        config.logFormat = try choice("LOG_FORMAT", ["text", "json"], default: "text") == "json" ? .json : .text
        config.maxConnections = try integer("MAX_CONNECTIONS", default: Limits.server.maxConnections, in: Self.limitRange)
        config.headerTimeoutMillis = try milliseconds("HTTP_HEADER_TIMEOUT", default: Int(Limits.server.headerTimeout.milliseconds), in: 50...3_600_000)
        config.idleTimeoutMillis = try milliseconds("HTTP_IDLE_TIMEOUT", default: Int(Limits.server.idleTimeout.milliseconds), in: 50...86_400_000)
        config.shutdownTimeoutMillis = try milliseconds("SHUTDOWN_TIMEOUT", default: 5_000, in: 0...3_600_000)
        config.pushLeaseMillis = try integer("PUSH_LEASE_SECONDS", default: Int(Outbox.defaultLeaseMillis / 1000),
                                             in: Self.pushLeaseRange) * 1000
        return config
    }

    func origin(_ name: String, schemes: [String]) throws(ConfigError) -> String? {
        guard let text = value(name) else { return nil }
        do {
            return try OriginSyntax.normalize(text, schemes: schemes)
        } catch {
            throw OriginSyntax.error(error, variable: name, text: text, schemes: schemes)
        }
    }

    func trustedProxies() throws(ConfigError) -> [CIDR] {
        guard let text = value("TRUSTED_PROXIES") else { return [] }
        var ranges: [CIDR] = []
        for item in ConfigSyntax.list(text, separators: [",", " ", "\t", "\n", "\r\n", "\r"]) {
            guard let range = CIDR(String(item)) else {
                throw ConfigError("TRUSTED_PROXIES", "\(ConfigError.quoted(String(item))) is not an IP address or CIDR range like 10.0.0.0/8")
            }
            ranges.append(range)
        }
        return ranges
    }

    /// RFC 4226 section 4 requires a shared secret of at least 128 bits.
    static let minimumTOTPSecretBytes = 16

    func totpSecret() throws(ConfigError) -> [UInt8]? {
        guard let secret = try secret("APP_TOTP_SECRET") else { return nil }
        // Files and credentials usually end in a newline; spaces inside are group separators.
        let text = ConfigSyntax.trimmed(Substring(String(decoding: secret.bytes, as: UTF8.self)))
        guard let bytes = Base32.decode(String(text)) else {
            throw secret.error("not base32 (RFC 4648: letters A-Z and digits 2-7, = padding optional)")
        }
        guard bytes.count >= Self.minimumTOTPSecretBytes else {
            throw secret.error("decodes to \(bytes.count) bytes; at least \(Self.minimumTOTPSecretBytes) are needed (RFC 4226), 32 random bytes are usual")
        }
        return bytes
    }

    func appAttestAppIDs() throws(ConfigError) -> [String] {
        guard let text = value("APP_ATTEST_APP_IDS") else { return [] }
        let items = ConfigSyntax.list(text, separators: [","])
        guard !items.isEmpty else { throw ConfigError("APP_ATTEST_APP_IDS", "lists no app ID (got \(ConfigError.quoted(text)))") }
        for item in items where !ConfigSyntax.isAppID(item) {
            throw ConfigError("APP_ATTEST_APP_IDS", "\(ConfigError.quoted(String(item))) is not TEAMID.bundle.id "
                + "(a team ID of 10 characters A-Z and 0-9, a dot, a bundle ID of letters, digits, - and .)")
        }
        return items.map(String.init)
    }

    func tls() throws(ConfigError) -> (String?, String?) {
        switch (value("TLS_CERT_FILE"), value("TLS_KEY_FILE")) {
        case (nil, nil):
            return (nil, nil)
        case (_?, nil):
            throw ConfigError("TLS_KEY_FILE", "not set, but TLS_CERT_FILE is; set both or neither")
        case (nil, _?):
            throw ConfigError("TLS_CERT_FILE", "not set, but TLS_KEY_FILE is; set both or neither")
        case (_?, _?):
            let cert = try file("TLS_CERT_FILE", containing: "-----BEGIN CERTIFICATE-----", what: "PEM certificate")
            let key = try file("TLS_KEY_FILE", containing: "PRIVATE KEY-----", what: "PEM private key")
            return (cert, key)
        }
    }

    /// Settings that only mean something with a feature on are refused while it is off: one
    /// of them set alone is most likely the feature's main variable misspelled or forgotten.
    func refuse(_ dependents: [String], while reason: String) throws(ConfigError) {
        for name in dependents where value(name) != nil {
            throw ConfigError(name, "set, but \(reason)")
        }
    }
}
