import EventLoop
import Logging
import Testing
@testable import relaydeckd

/// The plain settings: database, limits, proxies, logging, timeouts.
@Suite struct ConfigValueTests {
    @Test func takesTheDatabasePathAsGiven() throws {
        #expect(try load(["DATABASE_PATH": "/var/lib/relaydeck/relaydeck.db"]).databasePath == "/var/lib/relaydeck/relaydeck.db")
        #expect(try load(["DATABASE_PATH": ":memory:"]).databasePath == ":memory:")
    }

    @Test func readsDurabilityCaseInsensitively() throws {
        #expect(try load(["DURABILITY": "full"]).durability == .full)
        #expect(try load(["DURABILITY": "Normal"]).durability == .normal)
        #expect(loadError(["DURABILITY": "off"])?.description == "DURABILITY: expected normal or full (got \"off\")")
    }

    /// An install configured before `DURABILITY` keeps its choice.
    @Test func takesDatabaseSynchronousAsTheOlderNameOfDurability() throws {
        #expect(try load(["DATABASE_SYNCHRONOUS": "full"]).durability == .full)
        #expect(try load(["DATABASE_SYNCHRONOUS": "Normal"]).durability == .normal)
        #expect(try load(["DATABASE_SYNCHRONOUS": "FULL", "DURABILITY": "full"]).durability == .full)
        #expect(try load(["DATABASE_SYNCHRONOUS": "", "DURABILITY": "full"]).durability == .full)
        #expect(loadError(["DATABASE_SYNCHRONOUS": "OFF"])?.description == "DATABASE_SYNCHRONOUS: expected NORMAL or FULL (got \"OFF\")")
    }

    @Test func refusesDurabilityAndItsOlderNameSayingDifferentThings() throws {
        #expect(loadError(["DATABASE_SYNCHRONOUS": "NORMAL", "DURABILITY": "full"])?.description
                == "DURABILITY: is full, but DATABASE_SYNCHRONOUS, its older name, says NORMAL; set one of them")
        #expect(loadError(["DATABASE_SYNCHRONOUS": "full", "DURABILITY": "normal"])?.description
                == "DURABILITY: is normal, but DATABASE_SYNCHRONOUS, its older name, says FULL; set one of them")
    }

    static let limits = ["RATE_LIMIT_REQUESTS_PER_MINUTE", "RATE_LIMIT_ACCOUNTS_PER_HOUR", "RATE_LIMIT_CHALLENGES_PER_HOUR", "MAX_CONNECTIONS"]

    @Test(arguments: limits)
    func acceptsLimitsFromOneToAMillion(name: String) throws {
        for (text, value) in [("1", 1), ("1000000", 1_000_000), ("42", 42), ("007", 7)] {
            let config = try load([name: text])
            let read = switch name {
            case "RATE_LIMIT_REQUESTS_PER_MINUTE": config.rateLimitRequestsPerMinute
            case "RATE_LIMIT_ACCOUNTS_PER_HOUR": config.rateLimitAccountsPerHour
            case "RATE_LIMIT_CHALLENGES_PER_HOUR": config.rateLimitChallengesPerHour
            default: config.maxConnections
            }
            #expect(read == value, "\(name)=\(text)")
        }
    }

    @Test(arguments: limits)
    func refusesLimitsOutOfRangeOrNotWhole(name: String) {
        for text in ["0", "1000001", "-5", "+5", "10.5", " 5", "5 ", "1e3", "ten", "99999999999999999999999999", "５"] {
            #expect(loadError([name: text])?.description
                == "\(name): expected a whole number from 1 to 1000000 (got \(ConfigError.quoted(text)))", "\(text)")
        }
    }

    @Test func splitsTrustedProxiesOnCommasAndSpaces() throws {
        let config = try load(["TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.1 ::1,2001:db8::/32\t172.16.0.0/12,"])
        #expect(config.trustedProxies.map(\.description) == ["10.0.0.0/8", "192.168.1.1/32", "::1/128", "2001:db8::/32", "172.16.0.0/12"])
    }

    @Test func treatsAnEmptyProxyListAsNone() throws {
        #expect(try load(["TRUSTED_PROXIES": " , "]).trustedProxies == [])
    }

    @Test func clearsHostBitsOfTrustedProxies() throws {
        #expect(try load(["TRUSTED_PROXIES": "10.1.2.3/8"]).trustedProxies == [try #require(CIDR("10.0.0.0/8"))])
    }

    @Test func namesTheBadTrustedProxy() {
        #expect(loadError(["TRUSTED_PROXIES": "10.0.0.0/8,10.0.0.0/33"])?.description
            == "TRUSTED_PROXIES: \"10.0.0.0/33\" is not an IP address or CIDR range like 10.0.0.0/8")
        #expect(loadError(["TRUSTED_PROXIES": "proxy.internal"])?.description
            == "TRUSTED_PROXIES: \"proxy.internal\" is not an IP address or CIDR range like 10.0.0.0/8")
    }

    @Test func readsLogLevelAndFormat() throws {
        #expect(try load(["LOG_LEVEL": "debug"]).logLevel == .debug)
        #expect(try load(["LOG_LEVEL": "WARN"]).logLevel == .warn)
        #expect(try load(["LOG_LEVEL": "error"]).logLevel == .error)
        #expect(try load(["LOG_FORMAT": "json"]).logFormat == .json)
        #expect(try load(["LOG_FORMAT": "TEXT"]).logFormat == .text)
    }

    @Test func refusesUnknownLogLevelAndFormat() {
        #expect(loadError(["LOG_LEVEL": "verbose"])?.description == "LOG_LEVEL: expected debug, info, warn or error (got \"verbose\")")
        #expect(loadError(["LOG_LEVEL": "warning"])?.description == "LOG_LEVEL: expected debug, info, warn or error (got \"warning\")")
        #expect(loadError(["LOG_FORMAT": "xml"])?.description == "LOG_FORMAT: expected text or json (got \"xml\")")
    }

    @Test func readsTimeoutsInSecondsWithUpToThreeDecimals() throws {
        #expect(try load(["HTTP_HEADER_TIMEOUT": "0.5"]).headerTimeoutMillis == 500)
        #expect(try load(["HTTP_HEADER_TIMEOUT": "0.05"]).headerTimeoutMillis == 50)
        #expect(try load(["HTTP_HEADER_TIMEOUT": "3600"]).headerTimeoutMillis == 3_600_000)
        #expect(try load(["HTTP_HEADER_TIMEOUT": "2.125"]).headerTimeoutMillis == 2_125)
        #expect(try load(["HTTP_IDLE_TIMEOUT": "86400"]).idleTimeoutMillis == 86_400_000)
        #expect(try load(["HTTP_IDLE_TIMEOUT": "1.5"]).idleTimeoutMillis == 1_500)
        #expect(try load(["SHUTDOWN_TIMEOUT": "0"]).shutdownTimeoutMillis == 0)
        #expect(try load(["SHUTDOWN_TIMEOUT": "30"]).shutdownTimeoutMillis == 30_000)
    }

    @Test func refusesHeaderTimeoutsOutOfRangeOrMalformed() {
        for text in ["0.049", "0", "3600.001", "1.2345", ".5", "5.", "1e3", "-1", "10s", " 10", "1,5", "99999999999"] {
            #expect(loadError(["HTTP_HEADER_TIMEOUT": text])?.description
                == "HTTP_HEADER_TIMEOUT: expected seconds from 0.05 to 3600, with up to 3 decimals like 10 or 0.5 (got \(ConfigError.quoted(text)))", "\(text)")
        }
    }

    @Test func refusesIdleAndShutdownTimeoutsOutOfRange() {
        #expect(loadError(["HTTP_IDLE_TIMEOUT": "86400.5"])?.description
            == "HTTP_IDLE_TIMEOUT: expected seconds from 0.05 to 86400, with up to 3 decimals like 10 or 0.5 (got \"86400.5\")")
        #expect(loadError(["SHUTDOWN_TIMEOUT": "3601"])?.description
            == "SHUTDOWN_TIMEOUT: expected seconds from 0 to 3600, with up to 3 decimals like 10 or 0.5 (got \"3601\")")
    }

    @Test func readsThePushLeaseInWholeSecondsFromOneToAnHour() throws {
        #expect(try load(["PUSH_LEASE_SECONDS": "1"]).pushLeaseMillis == 1_000)
        #expect(try load(["PUSH_LEASE_SECONDS": "45"]).pushLeaseMillis == 45_000)
        #expect(try load(["PUSH_LEASE_SECONDS": "3600"]).pushLeaseMillis == 3_600_000)
        for text in ["0", "3601", "1.5", "-5", "2m", " 30"] {
            #expect(loadError(["PUSH_LEASE_SECONDS": text])?.description
                == "PUSH_LEASE_SECONDS: expected a whole number from 1 to 3600 (got \(ConfigError.quoted(text)))", "\(text)")
        }
    }

    @Test func reportsTheFirstBadVariableInPropertyOrder() {
        let error = loadError(["LOG_LEVEL": "loud", "LISTEN": "nowhere", "MAX_CONNECTIONS": "0"])
        #expect(error?.variable == "LISTEN")
    }
}
