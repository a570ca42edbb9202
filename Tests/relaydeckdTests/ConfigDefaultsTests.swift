import EventLoop
import Logging
import Testing
@testable import relaydeckd

@Suite struct ConfigDefaultsTests {
    @Test func emptyEnvironmentGivesEveryDefault() throws {
        let config = try load([:])
        #expect(config.listen == .tcp(host: try #require(IPAddress("127.0.0.1")), port: 8080))
        #expect(config.databasePath == "./relaydeck.db")
        #expect(config.durability == .normal)
        #expect(config.publicURL == nil)
        #expect(config.rateLimitRequestsPerMinute == 600)
        #expect(config.rateLimitAccountsPerHour == 20)
        #expect(config.rateLimitChallengesPerHour == 20)
        #expect(config.trustedProxies == [])
        #expect(config.appTOTPSecret == nil)
        #expect(config.appAttestAppIDs == [])
        #expect(config.appAttestEnvironment == "production")
        #expect(config.appAttestRootCAFile == nil)
        #expect(config.apns == nil)
        #expect(config.tlsCertFile == nil)
        #expect(config.tlsKeyFile == nil)
        #expect(config.logLevel == .info)
        #expect(config.logFormat == .text)
        #expect(config.maxConnections == 16384)
        #expect(config.headerTimeoutMillis == 10_000)
        #expect(config.idleTimeoutMillis == 75_000)
        #expect(config.shutdownTimeoutMillis == 5_000)
        #expect(config.pushLeaseMillis == 120_000)
    }

    @Test func emptyValuesCountAsUnset() throws {
        var environment: [String: String] = [:]
        for name in [
            "LISTEN", "DATABASE_PATH", "DURABILITY", "DATABASE_SYNCHRONOUS", "DATABASE_URL", "DATABASE_URL_FILE", "PUBLIC_URL", "RATE_LIMIT_REQUESTS_PER_MINUTE",
            "RATE_LIMIT_ACCOUNTS_PER_HOUR", "RATE_LIMIT_CHALLENGES_PER_HOUR", "TRUSTED_PROXIES", "APP_TOTP_SECRET",
            "APP_TOTP_SECRET_FILE", "APP_ATTEST_APP_IDS", "APP_ATTEST_ENVIRONMENT", "APP_ATTEST_ROOT_CA_FILE",
            "APNS_TEAM_ID", "APNS_KEY_ID", "APNS_PRIVATE_KEY", "APNS_PRIVATE_KEY_FILE", "APNS_BUNDLE_ID",
            "APNS_WATCH_BUNDLE_ID", "APNS_PRODUCTION_URL", "APNS_SANDBOX_URL", "APNS_CA_FILE", "TLS_CERT_FILE",
            "TLS_KEY_FILE", "LOG_LEVEL", "LOG_FORMAT", "MAX_CONNECTIONS", "HTTP_HEADER_TIMEOUT", "HTTP_IDLE_TIMEOUT",
            "SHUTDOWN_TIMEOUT", "PUSH_LEASE_SECONDS", "CREDENTIALS_DIRECTORY",
        ] {
            environment[name] = ""
        }
        let config = try load(environment)
        #expect(config.listen == .tcp(host: try #require(IPAddress("127.0.0.1")), port: 8080))
        #expect(config.databasePath == "./relaydeck.db")
        #expect(config.durability == .normal)
        #expect(config.databaseURL == nil)
        #expect(config.apns == nil)
        #expect(config.appTOTPSecret == nil)
        #expect(config.appAttestAppIDs == [])
        #expect(config.tlsCertFile == nil)
        #expect(config.logLevel == .info)
        #expect(config.maxConnections == 16384)
        #expect(config.headerTimeoutMillis == 10_000)
        #expect(config.pushLeaseMillis == 120_000)
    }

    @Test func ignoresUnrelatedVariables() throws {
        let config = try load(["PATH": "/usr/bin", "HOME": "/root", "RELAYDECK_UNKNOWN": "x"])
        #expect(config.databasePath == "./relaydeck.db")
    }
}
