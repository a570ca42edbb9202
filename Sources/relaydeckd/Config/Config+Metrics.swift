extension ConfigReader {
    /// A bearer token an operator can guess is no lock: 16 characters at least (`openssl
    /// rand -hex 32` gives 64).
    static let minimumMetricsTokenLength = 16

    /// `METRICS_TOKEN` (or `_FILE`, or the credential): visible ASCII without spaces, as a
    /// bearer token is sent; the file's trailing newline is not part of it.
    func metricsToken() throws(ConfigError) -> [UInt8]? {
        guard let secret = try secret("METRICS_TOKEN") else { return nil }
        let text = ConfigSyntax.trimmed(Substring(String(decoding: secret.bytes, as: UTF8.self)))
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw secret.error("holds a space or a character outside visible ASCII; a bearer token is letters, digits and punctuation")
        }
        guard bytes.count >= Self.minimumMetricsTokenLength else {
            throw secret.error("has \(bytes.count) characters; at least \(Self.minimumMetricsTokenLength) are needed (openssl rand -hex 32 makes one)")
        }
        return bytes
    }
}
