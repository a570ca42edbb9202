import Testing
@testable import Postgres

/// `DATABASE_URL`'s two spellings, what each keyword becomes, and the refusals, whose words
/// never hold the password.
@Suite struct SettingsParseTests {
    @Test func aFullURLGivesEveryPart() throws {
        let settings = try PostgresSettings.parse(
            "postgres://relay%40deck:p%40ss%2Fw0rd@db.example.net:6432/relaydeck?sslmode=verify-full&sslrootcert=/etc/ca.pem&application_name=node-a")
        #expect(settings.endpoint == .tcp(host: "db.example.net", port: 6432))
        #expect(settings.user == "relay@deck")
        #expect(settings.password == "p@ss/w0rd")
        #expect(settings.database == "relaydeck")
        #expect(settings.sslMode == .verifyFull)
        #expect(settings.sslRootCert == "/etc/ca.pem")
        #expect(settings.applicationName == "node-a")
    }

    @Test func thePostgresqlSchemeAndTheDefaults() throws {
        let settings = try PostgresSettings.parse("postgresql://relaydeck@db")
        #expect(settings.endpoint == .tcp(host: "db", port: 5432))
        #expect(settings.password == nil)
        #expect(settings.database == "relaydeck")
        #expect(settings.sslMode == .prefer)
        #expect(settings.applicationName == "relaydeckd")
        #expect(settings.keepalive == PostgresSettings.Keepalive(idleSeconds: 30, intervalSeconds: 10, count: 3))
    }

    @Test func libpqsKeepaliveKeywordsInBothSpellings() throws {
        let url = try PostgresSettings.parse("postgres://u@db/app?keepalives=1&keepalives_idle=60&keepalives_interval=5&keepalives_count=9")
        #expect(url.keepalive == PostgresSettings.Keepalive(idleSeconds: 60, intervalSeconds: 5, count: 9))
        let pairs = try PostgresSettings.parse("host=db user=u keepalives_idle=7")
        #expect(pairs.keepalive == PostgresSettings.Keepalive(idleSeconds: 7, intervalSeconds: 10, count: 3))
        #expect(try PostgresSettings.parse("host=db user=u keepalives=0").keepalive == nil)
    }

    @Test func aPasswordMayHoldSlashesAndAtSignsUnencoded() throws {
        let settings = try PostgresSettings.parse("postgres://u:a/b@c@db/app")
        #expect(settings.password == "a/b@c")
        #expect(settings.endpoint == .tcp(host: "db", port: 5432))
        #expect(settings.database == "app")
    }

    @Test func anIPv6HostInBrackets() throws {
        let settings = try PostgresSettings.parse("postgres://u@[::1]:5433/app")
        #expect(settings.endpoint == .tcp(host: "::1", port: 5433))
        #expect(settings.redacted == "postgres://u@[::1]:5433/app?sslmode=prefer")
    }

    @Test func aSocketDirectoryAsHost() throws {
        let encoded = try PostgresSettings.parse("postgres://u@%2Fvar%2Frun%2Fpostgresql/app")
        #expect(encoded.endpoint == .unix(directory: "/var/run/postgresql", port: 5432))
        #expect(encoded.endpoint.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        let query = try PostgresSettings.parse("postgres:///app?host=/tmp/pg&user=u&port=5499")
        #expect(query.endpoint == .unix(directory: "/tmp/pg", port: 5499))
        #expect(query.redacted == "postgres://u@/app?host=/tmp/pg&port=5499&sslmode=prefer")
        let none = try PostgresSettings.parse("postgres://u@/app")
        #expect(none.endpoint == .unix(directory: "/var/run/postgresql", port: 5432))
    }

    @Test func theKeywordValueForm() throws {
        let settings = try PostgresSettings.parse("host=db.internal port=5434 user=relaydeck password=pw dbname = app sslmode=require")
        #expect(settings.endpoint == .tcp(host: "db.internal", port: 5434))
        #expect(settings.password == "pw")
        #expect(settings.database == "app")
        #expect(settings.sslMode == .require)
        let quoted = try PostgresSettings.parse("host=db user=u password='a \\'b\\' c\\\\d'")
        #expect(quoted.password == "a 'b' c\\d")
    }

    @Test func theRedactedFormHidesThePassword() throws {
        let settings = try PostgresSettings.parse("postgres://u:hunter2secret@db:5432/app?sslmode=verify-full&sslrootcert=/ca.pem")
        #expect(settings.redacted == "postgres://u:(hidden)@db:5432/app?sslmode=verify-full&sslrootcert=/ca.pem")
        #expect(!"\(settings)".contains("hunter2"))
        #expect(!String(reflecting: settings).contains("hunter2"))
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }

    @Test(arguments: [
        ("mysql://u:hunter2secret@db/app", "is a URL of another scheme; expected postgres:// or postgresql://"),
        ("postgres://:hunter2secret@db/app", "names no user (postgres://USER:PASSWORD@HOST/DATABASE)"),
        ("postgres://u:hunter2secret@db:hunter2secret/app", "has a port that is not a number from 1 to 65535"),
        ("postgres://u:hunter2secret@db:0/app", "has a port that is not a number from 1 to 65535"),
        ("postgres://u:hunter2secret@a,b/app", "names several hosts; give one (a load balancer or DNS name in front of several)"),
        ("postgres://u:hunter2secret@db/app?sslmode=allow", "has sslmode=\"allow\"; expected disable, prefer, require, verify-ca, verify-full"),
        ("postgres://u:hunter2secret@db/app?sslcert=/c.pem", "has the parameter \"sslcert\", which this client does not support (it knows application_name, connect_timeout, dbname, host, keepalives, keepalives_count, keepalives_idle, keepalives_interval, password, port, sslmode, sslrootcert, user)"),
        ("postgres://u:hunter2secret@db/app?keepalives=yes", "has keepalives=\"yes\"; expected 1 or 0"),
        ("postgres://u:hunter2secret@db/app?keepalives=0&keepalives_idle=5", "gives keepalives_idle with keepalives=0"),
        ("postgres://u:hunter2secret@db/app?keepalives_idle=0", "has keepalives_idle=\"0\"; expected whole seconds from 1 to 32767"),
        ("postgres://u:hunter2secret@db/app?keepalives_interval=40000", "has keepalives_interval=\"40000\"; expected whole seconds from 1 to 32767"),
        ("postgres://u:hunter2secret@db/app?keepalives_count=128", "has keepalives_count=\"128\"; expected a whole number from 1 to 127"),
        ("postgres://u:hunter2secret@db/app?hunter2secret", "has a query parameter without = and a value"),
        ("postgres://u:hunter2secret@db/app?sslmode=prefer&sslrootcert=/ca.pem", "gives sslrootcert with sslmode=prefer, which checks no certificate; use verify-full"),
        ("postgres://u:hunter2secret@/app?sslmode=verify-full", "asks for sslmode=verify-full over a Unix socket, where the server offers no TLS"),
        ("postgres://u:hunter2%zzsecret@db/app", "has a % in the password that is not followed by two hex digits"),
        ("postgres://u:hunter2secret@db/app?connect_timeout=0", "has connect_timeout=\"0\"; expected whole seconds from 1 to 3600"),
        ("postgres://u:hunter2secret@db/app?port=1&port=2", "gives port twice"),
        ("postgres://u:hunter2%00secret@db/app", "has a NUL character in the password"),
        ("host=db user=u password='hunter2secret", "has a quoted value of password without its closing quote"),
        ("just some text", "expected a postgres:// URL or keyword=value pairs"),
    ])
    func refusalsNameTheProblemAndNeverThePassword(_ text: String, _ message: String) {
        do {
            _ = try PostgresSettings.parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message == message)
            #expect(!error.message.contains("hunter2"))
        }
    }
}
