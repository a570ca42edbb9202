import API
import AppIntegrity
import Testing
@testable import relaydeckd

/// The App Attest settings the daemon gives the API (`app-integrity.md#app-attest`): off
/// without app IDs, Apple's pinned root by default, a replacement root that OpenSSL must read.
@Suite struct ConfigAppAttestSettingsTests {
    private static let ids = "ABCDE12345.com.example.relaydeck"

    @Test func offWithoutAppIDs() throws {
        #expect(try load([:]).appAttestSettings() == nil)
    }

    @Test func applesRootAndTheEnvironment() throws {
        let config = try load(["APP_ATTEST_APP_IDS": Self.ids, "APP_ATTEST_ENVIRONMENT": "development"])
        let settings = try #require(try config.appAttestSettings())
        #expect(settings.appIDs == [Self.ids])
        #expect(settings.environment == .development)
        #expect(settings.rootPEM == nil)
        #expect(try load(["APP_ATTEST_APP_IDS": Self.ids]).appAttestSettings()?.environment == .production)
    }

    @Test func aReplacementRootIsReadAndMustBeACertificate() throws {
        let environment = ["APP_ATTEST_APP_IDS": Self.ids, "APP_ATTEST_ROOT_CA_FILE": "/etc/relaydeck/root.pem"]
        let good = try load(environment, files: ["/etc/relaydeck/root.pem": PEM.certificate])
        let settings = try good.appAttestSettings { _ in Array(AppleAppAttestationRoot.pem.utf8) }
        #expect(settings?.rootPEM == AppleAppAttestationRoot.pem)
        #expect(throws: ConfigError("APP_ATTEST_ROOT_CA_FILE", "\"/etc/relaydeck/root.pem\" holds no certificate OpenSSL can read")) {
            try good.appAttestSettings { _ in Array(PEM.certificate.utf8) }
        }
        #expect(throws: ConfigError("APP_ATTEST_ROOT_CA_FILE", "cannot read \"/etc/relaydeck/root.pem\"")) {
            try good.appAttestSettings { _ in throw FileReadError(path: "/etc/relaydeck/root.pem", reason: .tooLarge) }
        }
    }
}
