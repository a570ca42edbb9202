import EventLoop
import Logging
import Postgres

/// Printing a configuration never shows a secret: `print(config)`, string interpolation and
/// `dump(config)` all go through the redacted summary, so a debug log line cannot leak
/// the TOTP secret or the APNs key.
extension Config: CustomStringConvertible, CustomReflectable {
    /// Every setting as `(variable, value)` in the form an operator writes it; secrets show
    /// only `(set)`. For `relaydeckd check-config` and the start-up log.
    var summary: [(variable: String, value: String)] {
        var rows: [(String, String)] = [
            ("LISTEN", listen.text),
            ("DATABASE_PATH", databasePath),
            ("DURABILITY", durability.rawValue),
            // The URL without its password (`PostgresSettings.redacted`).
            ("DATABASE_URL", databaseURL?.redacted ?? "(off: SQLite at DATABASE_PATH)"),
            ("DATABASE_CONNECTIONS", databaseURL == nil ? "(SQLite)" : String(databaseConnections)),
            ("PUBLIC_URL", publicURL ?? "(from the Host header)"),
            ("RATE_LIMIT_REQUESTS_PER_MINUTE", String(rateLimitRequestsPerMinute)),
            ("RATE_LIMIT_ACCOUNTS_PER_HOUR", String(rateLimitAccountsPerHour)),
            ("RATE_LIMIT_CHALLENGES_PER_HOUR", String(rateLimitChallengesPerHour)),
            ("ACCOUNT_CREATION", accountCreationOpen ? "open" : "closed"),
            ("WEB_PUSH_ALLOW_PRIVATE_HOSTS", webPushAllowPrivateHosts ? "true" : "false"),
            ("WEB_PUSH_SUBJECT", webPushSubject ?? "(\(webPushContact))"),
            ("WEB_PUSH_CA_FILE", webPushCAFile ?? "(system)"),
            ("OAUTH_ALLOW_PRIVATE_HOSTS", oauthAllowPrivateHosts ? "true" : "false"),
            ("OAUTH_CA_FILE", oauthCAFile ?? "(system)"),
            ("ACCOUNT_STORAGE_LIMIT", ConfigSyntax.byteText(accountStorageLimit)),
            ("TRUSTED_PROXIES", trustedProxies.isEmpty ? "(none)" : trustedProxies.map(\.description).joined(separator: ",")),
            ("APP_TOTP_SECRET", appTOTPSecret == nil ? "(off)" : "(set)"),
            ("APP_ATTEST_APP_IDS", appAttestAppIDs.isEmpty ? "(off)" : appAttestAppIDs.joined(separator: ",")),
        ]
        if !appAttestAppIDs.isEmpty {
            rows.append(("APP_ATTEST_ENVIRONMENT", appAttestEnvironment))
            rows.append(("APP_ATTEST_ROOT_CA_FILE", appAttestRootCAFile ?? "(Apple's)"))
        }
        if let apns {
            rows += [
                ("APNS_TEAM_ID", apns.teamID),
                ("APNS_KEY_ID", apns.keyID),
                ("APNS_PRIVATE_KEY", "(set)"),
                ("APNS_BUNDLE_ID", apns.bundleID),
                ("APNS_WATCH_BUNDLE_ID", apns.watchBundleID ?? "(none)"),
                ("APNS_PRODUCTION_URL", apns.productionURL),
                ("APNS_SANDBOX_URL", apns.sandboxURL),
                ("APNS_CA_FILE", apns.caFile ?? "(system)"),
            ]
        } else {
            rows.append(("APNS_TEAM_ID", "(push off)"))
        }
        rows += [
            ("TLS_CERT_FILE", tlsCertFile ?? "(plain HTTP)"),
            ("TLS_KEY_FILE", tlsKeyFile ?? "(plain HTTP)"),
            ("METRICS_TOKEN", metricsToken == nil ? "(off)" : "(set)"),
            ("METRICS_LISTEN", metricsListen?.text ?? "(off)"),
            ("LOG_LEVEL", logLevel.name),
            ("LOG_FORMAT", logFormat == .json ? "json" : "text"),
            ("MAX_CONNECTIONS", String(maxConnections)),
            ("HTTP_HEADER_TIMEOUT", ConfigSyntax.seconds(headerTimeoutMillis)),
            ("HTTP_IDLE_TIMEOUT", ConfigSyntax.seconds(idleTimeoutMillis)),
            ("SHUTDOWN_TIMEOUT", ConfigSyntax.seconds(shutdownTimeoutMillis)),
            ("PUSH_LEASE_SECONDS", String(pushLeaseMillis / 1000)),
        ]
        return rows
    }

    var description: String {
        summary.map { "\($0.variable)=\($0.value)" }.joined(separator: " ")
    }

    var customMirror: Mirror {
        Mirror(self, children: summary.map { (label: $0.variable, value: $0.value as Any) })
    }
}

extension Config.ListenAddress {
    /// As written in `LISTEN`: `127.0.0.1:8080`, `[::1]:8080`, `unix:/run/relaydeck.sock`.
    var text: String {
        switch self {
        case .tcp(let host, let port): host.family == .v6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}

extension Config.APNs: CustomStringConvertible, CustomReflectable {
    var description: String {
        "APNs(team \(teamID), key \(keyID), bundle \(bundleID), private key (set))"
    }

    var customMirror: Mirror {
        Mirror(self, children: ["teamID": teamID, "keyID": keyID, "privateKeyPEM": "(set)", "bundleID": bundleID])
    }
}
