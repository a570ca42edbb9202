import Testing
@testable import relaydeckd

/// App Attest settings and TLS files.
@Suite struct ConfigAppIntegrityTests {
    @Test func readsAppIDs() throws {
        let config = try load(["APP_ATTEST_APP_IDS": "ABCDE12345.com.example.relaydeck, ABCDE12345.com.example.relaydeck-dev,"])
        #expect(config.appAttestAppIDs == ["ABCDE12345.com.example.relaydeck", "ABCDE12345.com.example.relaydeck-dev"])
        #expect(try load(["APP_ATTEST_APP_IDS": "0123456789.app"]).appAttestAppIDs == ["0123456789.app"])
    }

    @Test(arguments: ["abcde12345.com.example", "ABCDE1234.com.example", "ABCDE123456.com.example", "ABCDE12345.", "ABCDE12345",
                      "ABCDE12345com.example", "ABCDE12345.com..example", "ABCDE12345.com.example.", "ABCDE12345.com.ex_ample",
                      "ABCDE12345.com example", "ÄBCDE12345.com.example"])
    func refusesMalformedAppIDs(text: String) {
        #expect(loadError(["APP_ATTEST_APP_IDS": "ABCDE12345.com.good," + text])?.description
            == "APP_ATTEST_APP_IDS: \(ConfigError.quoted(text)) is not TEAMID.bundle.id (a team ID of 10 characters A-Z and 0-9, a dot, a bundle ID of letters, digits, - and .)")
    }

    @Test func refusesAListOfNothing() {
        #expect(loadError(["APP_ATTEST_APP_IDS": " , "])?.description == "APP_ATTEST_APP_IDS: lists no app ID (got \" , \")")
    }

    @Test func readsTheEnvironment() throws {
        let ids = "ABCDE12345.com.example.relaydeck"
        #expect(try load(["APP_ATTEST_APP_IDS": ids, "APP_ATTEST_ENVIRONMENT": "development"]).appAttestEnvironment == "development")
        #expect(try load(["APP_ATTEST_APP_IDS": ids, "APP_ATTEST_ENVIRONMENT": "Production"]).appAttestEnvironment == "production")
        #expect(loadError(["APP_ATTEST_APP_IDS": ids, "APP_ATTEST_ENVIRONMENT": "sandbox"])?.description
            == "APP_ATTEST_ENVIRONMENT: expected production or development (got \"sandbox\")")
    }

    @Test func readsTheRootCAFile() throws {
        let environment = ["APP_ATTEST_APP_IDS": "ABCDE12345.com.example.relaydeck", "APP_ATTEST_ROOT_CA_FILE": "/etc/relaydeck/root.pem"]
        #expect(try load(environment, files: ["/etc/relaydeck/root.pem": PEM.certificate]).appAttestRootCAFile == "/etc/relaydeck/root.pem")
        #expect(loadError(environment, files: ["/etc/relaydeck/root.pem": "hello"])?.description
            == "APP_ATTEST_ROOT_CA_FILE: \"/etc/relaydeck/root.pem\" holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)")
        #expect(loadError(environment)?.description
            == "APP_ATTEST_ROOT_CA_FILE: cannot read \"/etc/relaydeck/root.pem\": No such file or directory")
    }

    @Test func refusesAttestSettingsWhileAttestIsOff() {
        #expect(loadError(["APP_ATTEST_ENVIRONMENT": "development"])?.description
            == "APP_ATTEST_ENVIRONMENT: set, but App Attest is off (APP_ATTEST_APP_IDS is not set)")
        #expect(loadError(["APP_ATTEST_ROOT_CA_FILE": "/ca.pem"])?.description
            == "APP_ATTEST_ROOT_CA_FILE: set, but App Attest is off (APP_ATTEST_APP_IDS is not set)")
    }

    @Test func readsBothTLSFiles() throws {
        let config = try load(["TLS_CERT_FILE": "/tls/cert.pem", "TLS_KEY_FILE": "/tls/key.pem"],
                              files: ["/tls/cert.pem": PEM.certificate, "/tls/key.pem": PEM.ecPrivateKey])
        #expect(config.tlsCertFile == "/tls/cert.pem")
        #expect(config.tlsKeyFile == "/tls/key.pem")
    }

    @Test func needsBothTLSFilesOrNeither() {
        #expect(loadError(["TLS_CERT_FILE": "/tls/cert.pem"], files: ["/tls/cert.pem": PEM.certificate])?.description
            == "TLS_KEY_FILE: not set, but TLS_CERT_FILE is; set both or neither")
        #expect(loadError(["TLS_KEY_FILE": "/tls/key.pem"], files: ["/tls/key.pem": PEM.privateKey])?.description
            == "TLS_CERT_FILE: not set, but TLS_KEY_FILE is; set both or neither")
    }

    @Test func checksTheTLSFilesAreReadablePEM() throws {
        let environment = ["TLS_CERT_FILE": "/tls/cert.pem", "TLS_KEY_FILE": "/tls/key.pem"]
        #expect(loadError(environment, files: ["/tls/cert.pem": PEM.certificate])?.description
            == "TLS_KEY_FILE: cannot read \"/tls/key.pem\": No such file or directory")
        #expect(loadError(environment, files: ["/tls/cert.pem": PEM.certificate, "/tls/key.pem": PEM.privateKey], unreadable: ["/tls/cert.pem"])?.description
            == "TLS_CERT_FILE: cannot read \"/tls/cert.pem\": Permission denied")
        let keyText = "secret-key-material-qx8vkw"
        let error = try #require(loadError(environment, files: ["/tls/cert.pem": PEM.certificate, "/tls/key.pem": keyText]))
        #expect(error.description == "TLS_KEY_FILE: \"/tls/key.pem\" holds no PEM private key (no PRIVATE KEY----- line)")
        #expect(!leaks(keyText, in: error.description))
    }
}
