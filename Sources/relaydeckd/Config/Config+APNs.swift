extension ConfigReader {
    static let apnsRequired = ["APNS_TEAM_ID", "APNS_KEY_ID", "APNS_PRIVATE_KEY", "APNS_BUNDLE_ID"]
    static let apnsProductionURL = "https://api.push.apple.com"
    static let apnsSandboxURL = "https://api.sandbox.push.apple.com"

    /// Push settings: all four required variables or none. The optional ones are refused
    /// while push is off, like App Attest's.
    func apns() throws(ConfigError) -> Config.APNs? {
        let key = try secret("APNS_PRIVATE_KEY")
        let present = Self.apnsRequired.filter { $0 == "APNS_PRIVATE_KEY" ? key != nil : value($0) != nil }
        if present.isEmpty {
            try refuse(["APNS_WATCH_BUNDLE_ID", "APNS_PRODUCTION_URL", "APNS_SANDBOX_URL", "APNS_CA_FILE"],
                       while: "push is off (APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY and APNS_BUNDLE_ID are not set)")
            return nil
        }
        let missing = Self.apnsRequired.filter { !present.contains($0) }
        if let first = missing.first {
            throw ConfigError(first, "not set, but \(present.joined(separator: ", ")) \(present.count == 1 ? "is" : "are"); "
                + "push needs all four of \(Self.apnsRequired.joined(separator: ", ")) (missing: \(missing.joined(separator: ", ")))")
        }
        guard let key else { return nil }
        return Config.APNs(
            teamID: try appleID("APNS_TEAM_ID"),
            keyID: try appleID("APNS_KEY_ID"),
            privateKeyPEM: try privateKey(key),
            bundleID: try bundleID("APNS_BUNDLE_ID") ?? "",
            watchBundleID: try bundleID("APNS_WATCH_BUNDLE_ID"),
            productionURL: try origin("APNS_PRODUCTION_URL", schemes: ["https", "http"]) ?? Self.apnsProductionURL,
            sandboxURL: try origin("APNS_SANDBOX_URL", schemes: ["https", "http"]) ?? Self.apnsSandboxURL,
            caFile: try file("APNS_CA_FILE", containing: "-----BEGIN CERTIFICATE-----", what: "PEM certificate")
        )
    }

    func appleID(_ name: String) throws(ConfigError) -> String {
        let text = value(name) ?? ""
        guard ConfigSyntax.isAppleID(text[...].utf8) else {
            throw ConfigError(name, "expected 10 characters of A-Z and 0-9 (got \(ConfigError.quoted(text)))")
        }
        return text
    }

    func bundleID(_ name: String) throws(ConfigError) -> String? {
        guard let text = value(name) else { return nil }
        guard ConfigSyntax.isBundleID(text[...].utf8) else {
            throw ConfigError(name, "expected a bundle ID of letters, digits, - and ., like com.example.app (got \(ConfigError.quoted(text)))")
        }
        return text
    }

    /// The `.p8` key as PEM text. A single-line value with literal `\n` sequences (how
    /// multi-line secrets often reach an environment) is unfolded into lines.
    func privateKey(_ secret: Secret) throws(ConfigError) -> [UInt8] {
        var pem = secret.bytes
        if secret.location == nil && !pem.contains(0x0A) {
            pem = Self.unfoldEscapedNewlines(pem)
        }
        guard ConfigSyntax.contains(pem, "-----BEGIN PRIVATE KEY-----"), ConfigSyntax.contains(pem, "-----END PRIVATE KEY-----") else {
            throw secret.error("not a PEM private key; expected the .p8 file from Apple, which starts with -----BEGIN PRIVATE KEY-----")
        }
        return pem
    }

    static func unfoldEscapedNewlines(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "n") {
                out.append(0x0A)
                i += 2
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}
