import API
import AppIntegrity

extension Config {
    /// App Attest's settings for the API (`app-integrity.md#app-attest`), nil while
    /// `APP_ATTEST_APP_IDS` is not set. The root certificate is read here once more and
    /// parsed by OpenSSL, so a file that only looks like PEM stops the start instead of making
    /// every account creation fail.
    func appAttestSettings(readFile: (String) throws -> [UInt8] = Config.readFileFromDisk) throws(ConfigError) -> AppAttestSettings? {
        guard !appAttestAppIDs.isEmpty else { return nil }
        guard let environment = AppAttestEnvironment(rawValue: appAttestEnvironment) else {
            throw ConfigError("APP_ATTEST_ENVIRONMENT", "must be production or development")
        }
        var settings = AppAttestSettings(appIDs: appAttestAppIDs, environment: environment)
        if let path = appAttestRootCAFile {
            let contents: [UInt8]
            do {
                contents = try readFile(path)
            } catch {
                throw ConfigError("APP_ATTEST_ROOT_CA_FILE", "cannot read \(ConfigError.quoted(path))")
            }
            settings.rootPEM = String(decoding: contents, as: UTF8.self)
        }
        guard settings.makeVerifier() != nil else {
            throw ConfigError("APP_ATTEST_ROOT_CA_FILE", "\(ConfigError.quoted(appAttestRootCAFile ?? "")) holds no certificate OpenSSL can read")
        }
        return settings
    }
}
