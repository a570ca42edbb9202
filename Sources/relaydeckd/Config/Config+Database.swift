import Postgres

extension ConfigReader {
    /// `DATABASE_URL` (or `_FILE`, or the credential): PostgreSQL's connection string, a
    /// `postgres://` or `postgresql://` URL or libpq's keyword/value form (`PostgresSettings.parse`).
    /// A secret, as it holds the password: a message names the file it came from, never the
    /// text. `sslrootcert` must read and hold a certificate now, as `*_CA_FILE` settings do.
    func databaseURL() throws(ConfigError) -> PostgresSettings? {
        guard let secret = try secret("DATABASE_URL") else { return nil }
        // Files and credentials usually end in a newline.
        let text = ConfigSyntax.trimmed(Substring(String(decoding: secret.bytes, as: UTF8.self)))
        let settings: PostgresSettings
        do {
            settings = try PostgresSettings.parse(String(text))
        } catch {
            throw secret.error(error.message)
        }
        if let root = settings.sslRootCert {
            let contents: [UInt8]
            do {
                contents = try readFile(root)
            } catch {
                throw secret.error("sslrootcert: " + Self.describe(error, path: root))
            }
            guard ConfigSyntax.contains(contents, "-----BEGIN CERTIFICATE-----") else {
                throw secret.error("sslrootcert: \(ConfigError.quoted(root)) holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)")
            }
        }
        return settings
    }
}
