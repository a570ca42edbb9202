extension PostgresSettings {
    /// The keywords a connection string may hold. Anything else is refused rather than
    /// ignored: a setting the client would silently not apply (`sslcert`, `target_session_attrs`)
    /// is a surprise for the operator who wrote it.
    static let keywords: Set<String> = [
        "host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "application_name", "connect_timeout",
        "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
    ]

    /// Reads `text` (a `postgres://` or `postgresql://` URL, or libpq's keyword/value form)
    /// and checks every value. A host that starts with `/` is the directory of a Unix
    /// socket; no host is Debian's socket directory. A message never holds the password,
    /// nor any part of the text before the host (where a password could be mistyped).
    public static func parse(_ text: String) throws(PostgresSettingsError) -> PostgresSettings {
        var values: [String: String] = [:]
        for (key, value) in try ConnectionString.keywords(text) {
            guard keywords.contains(key) else {
                throw PostgresSettingsError("has the parameter \(PostgresSettingsError.quoted(key)), which this client does not support"
                    + " (it knows \(keywords.sorted().joined(separator: ", ")))")
            }
            guard values[key] == nil else {
                throw PostgresSettingsError("gives \(key) twice")
            }
            values[key] = value
        }
        guard let user = values["user"], !user.isEmpty else {
            throw PostgresSettingsError("names no user (postgres://USER:PASSWORD@HOST/DATABASE)")
        }
        let port = try Self.port(values["port"])
        let host = values["host"] ?? ""
        let endpoint: PostgresEndpoint
        if host.isEmpty {
            endpoint = .unix(directory: defaultSocketDirectory, port: port)
        } else if host.hasPrefix("/") {
            endpoint = .unix(directory: host, port: port)
        } else {
            guard host.utf8.count <= 253, host.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "/" }) else {
                throw PostgresSettingsError("has a host that is not a DNS name, an IP address or a socket directory")
            }
            endpoint = .tcp(host: host, port: port)
        }
        let mode: SSLMode
        if let text = values["sslmode"] {
            guard let known = SSLMode(rawValue: text) else {
                throw PostgresSettingsError("has sslmode=\(PostgresSettingsError.quoted(text)); expected "
                    + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            mode = known
        } else {
            mode = .prefer
        }
        let rootCert = values["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 }
        if rootCert != nil && (mode == .disable || mode == .prefer) {
            throw PostgresSettingsError("gives sslrootcert with sslmode=\(mode.rawValue), which checks no certificate; use verify-full")
        }
        if case .unix = endpoint, mode.requiresTLS {
            throw PostgresSettingsError("asks for sslmode=\(mode.rawValue) over a Unix socket, where the server offers no TLS")
        }
        var timeout: Int?
        if let text = values["connect_timeout"] {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw PostgresSettingsError("has connect_timeout=\(PostgresSettingsError.quoted(text)); expected whole seconds from 1 to 3600")
            }
            timeout = seconds
        }
        let database = values["dbname"].flatMap { $0.isEmpty ? nil : $0 }
        let password = values["password"].flatMap { $0.isEmpty ? nil : $0 }
        for (name, value) in [("user", user), ("dbname", database ?? ""), ("application_name", values["application_name"] ?? "")]
            where value.utf8.contains(0) {
            throw PostgresSettingsError("has a NUL character in \(name)")
        }
        if password?.utf8.contains(0) == true {
            throw PostgresSettingsError("has a NUL character in the password")
        }
        var settings = PostgresSettings(endpoint: endpoint, user: user, password: password, database: database, sslMode: mode,
                                        sslRootCert: rootCert, applicationName: values["application_name"] ?? "relaydeckd",
                                        connectTimeoutSeconds: timeout)
        settings.keepalive = try keepalive(values)
        return settings
    }

    /// libpq's keepalive keywords: `keepalives` 1 (the default) or 0, and each time in whole
    /// seconds (a count for `keepalives_count`), within what Linux takes.
    private static func keepalive(_ values: [String: String]) throws(PostgresSettingsError) -> Keepalive? {
        switch values["keepalives"] {
        case nil, "1": break
        case "0":
            for name in ["keepalives_idle", "keepalives_interval", "keepalives_count"] where values[name] != nil {
                throw PostgresSettingsError("gives \(name) with keepalives=0")
            }
            return nil
        case let text?:
            throw PostgresSettingsError("has keepalives=\(PostgresSettingsError.quoted(text)); expected 1 or 0")
        }
        var keepalive = Keepalive()
        func number(_ name: String, _ range: ClosedRange<Int32>, _ what: String) throws(PostgresSettingsError) -> Int32? {
            guard let text = values[name] else { return nil }
            guard let value = Int32(text), range.contains(value) else {
                throw PostgresSettingsError("has \(name)=\(PostgresSettingsError.quoted(text)); expected \(what) from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        keepalive.idleSeconds = try number("keepalives_idle", 1...32767, "whole seconds") ?? keepalive.idleSeconds
        keepalive.intervalSeconds = try number("keepalives_interval", 1...32767, "whole seconds") ?? keepalive.intervalSeconds
        keepalive.count = try number("keepalives_count", 1...127, "a whole number") ?? keepalive.count
        return keepalive
    }

    private static func port(_ text: String?) throws(PostgresSettingsError) -> UInt16 {
        guard let text else { return defaultPort }
        guard let port = UInt16(text), port > 0, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            // Not quoted: in a URL the port's place is right after the password's.
            throw PostgresSettingsError("has a port that is not a number from 1 to 65535")
        }
        return port
    }
}
