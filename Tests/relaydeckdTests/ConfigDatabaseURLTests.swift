import Postgres
import Testing
@testable import relaydeckd

/// `DATABASE_URL` in its three forms: checked at start, shown without its password, and a
/// refusal to serve while PostgreSQL is not served.
@Suite struct ConfigDatabaseURLTests {
    static let url = "postgres://relaydeck:s3cr3t-pw-9f8e@db.internal:5433/relaydeck?sslmode=verify-full&sslrootcert=/etc/relaydeck/db-ca.pem"
    static let caFile = ["/etc/relaydeck/db-ca.pem": PEM.certificate]

    @Test func theURLIsReadAndShownWithoutItsPassword() throws {
        let config = try load(["DATABASE_URL": Self.url], files: Self.caFile)
        let settings = try #require(config.databaseURL)
        #expect(settings.endpoint == .tcp(host: "db.internal", port: 5433))
        #expect(settings.password == "s3cr3t-pw-9f8e")
        #expect(settings.sslMode == .verifyFull)
        let shown = try #require(config.summary.first { $0.variable == "DATABASE_URL" }).value
        #expect(shown == "postgres://relaydeck:(hidden)@db.internal:5433/relaydeck?sslmode=verify-full&sslrootcert=/etc/relaydeck/db-ca.pem")
        #expect(!leaks("s3cr3t-pw-9f8e", in: "\(config)"))
        #expect(!leaks("s3cr3t-pw-9f8e", in: String(reflecting: config)))
    }

    @Test func unsetMeansSQLite() throws {
        let config = try load([:])
        #expect(config.databaseURL == nil)
        #expect(config.summary.first { $0.variable == "DATABASE_URL" }?.value == "(off: SQLite at DATABASE_PATH)")
    }

    @Test func theFileFormAndTheCredential() throws {
        let fromFile = try load(["DATABASE_URL_FILE": "/etc/relaydeck/db-url"],
                                files: ["/etc/relaydeck/db-url": Self.url + "\n"].merging(Self.caFile) { $1 })
        #expect(fromFile.databaseURL?.password == "s3cr3t-pw-9f8e")
        let credentials = "/run/credentials/relaydeck.service"
        let fromCredential = try load(["CREDENTIALS_DIRECTORY": credentials],
                                      files: [credentials + "/DATABASE_URL": Self.url].merging(Self.caFile) { $1 })
        #expect(fromCredential.databaseURL?.user == "relaydeck")
    }

    @Test func aBadURLNamesTheVariableAndNeverThePassword() throws {
        let error = try #require(loadError(["DATABASE_URL": "postgres://relaydeck:s3cr3t-pw-9f8e@db:notaport/app"]))
        #expect(error.description == "DATABASE_URL: has a port that is not a number from 1 to 65535")
        let fromFile = try #require(loadError(["DATABASE_URL_FILE": "/etc/relaydeck/db-url"],
                                              files: ["/etc/relaydeck/db-url": "mysql://u:s3cr3t-pw-9f8e@db/app\n"]))
        #expect(fromFile.description
            == "DATABASE_URL_FILE: \"/etc/relaydeck/db-url\": is a URL of another scheme; expected postgres:// or postgresql://")
        #expect(!leaks("s3cr3t-pw-9f8e", in: error.description + fromFile.description))
    }

    @Test func theRootCertificateMustReadAndHoldACertificate() throws {
        #expect(loadError(["DATABASE_URL": Self.url])?.description
            == "DATABASE_URL: sslrootcert: cannot read \"/etc/relaydeck/db-ca.pem\": No such file or directory")
        #expect(loadError(["DATABASE_URL": Self.url], files: ["/etc/relaydeck/db-ca.pem": "not a certificate"])?.description
            == "DATABASE_URL: sslrootcert: \"/etc/relaydeck/db-ca.pem\" holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)")
    }

    @Test func theURLAndItsFileTogetherAreRefused() {
        #expect(loadError(["DATABASE_URL": Self.url, "DATABASE_URL_FILE": "/x"])?.description
            == "DATABASE_URL: set together with DATABASE_URL_FILE; set only one of them")
    }

    @Test func thePoolsSizeIsFourUnlessSetWithinOneToAHundred() throws {
        let plain = try load(["DATABASE_URL": Self.url], files: Self.caFile)
        #expect(plain.databaseConnections == 4)
        #expect(plain.summary.first { $0.variable == "DATABASE_CONNECTIONS" }?.value == "4")
        #expect(try load(["DATABASE_URL": Self.url, "DATABASE_CONNECTIONS": "1"], files: Self.caFile).databaseConnections == 1)
        #expect(try load(["DATABASE_URL": Self.url, "DATABASE_CONNECTIONS": "100"], files: Self.caFile).databaseConnections == 100)
        for refused in ["0", "101", "-1", "4.5", "four", " 4", "1e2"] {
            #expect(loadError(["DATABASE_URL": Self.url, "DATABASE_CONNECTIONS": refused], files: Self.caFile)?.description
                == "DATABASE_CONNECTIONS: expected a whole number from 1 to 100 (got \(ConfigError.quoted(refused)))", "\(refused)")
        }
    }

    @Test func thePoolsSizeWithoutPostgreSQLIsRefused() throws {
        #expect(loadError(["DATABASE_CONNECTIONS": "8"])?.description
            == "DATABASE_CONNECTIONS: set, but the store is SQLite (DATABASE_URL is not set)")
        #expect(try load([:]).summary.first { $0.variable == "DATABASE_CONNECTIONS" }?.value == "(SQLite)")
    }
}
