import Testing
@testable import relaydeckd

@Suite struct ConfigAPNsTests {
    static let push: [String: String] = [
        "APNS_TEAM_ID": "ABCDE12345",
        "APNS_KEY_ID": "KEY1234567",
        "APNS_PRIVATE_KEY": PEM.privateKey,
        "APNS_BUNDLE_ID": "com.example.relaydeck",
    ]

    private func with(_ changes: [String: String?]) -> [String: String] {
        var environment = Self.push
        for (name, value) in changes { environment[name] = value }
        return environment
    }

    @Test func turnsPushOnWithAllFourAndAppliesDefaults() throws {
        let apns = try #require(try load(Self.push).apns)
        #expect(apns == Config.APNs(
            teamID: "ABCDE12345", keyID: "KEY1234567", privateKeyPEM: Array(PEM.privateKey.utf8),
            bundleID: "com.example.relaydeck", watchBundleID: nil,
            productionURL: "https://api.push.apple.com", sandboxURL: "https://api.sandbox.push.apple.com", caFile: nil
        ))
    }

    @Test func readsTheOptionalSettings() throws {
        let apns = try #require(try load(with([
            "APNS_WATCH_BUNDLE_ID": "com.example.relaydeck.watchkitapp",
            "APNS_PRODUCTION_URL": "http://127.0.0.1:2197/",
            "APNS_SANDBOX_URL": "https://apns-mock.test:8443",
            "APNS_CA_FILE": "/etc/relaydeck/mock-ca.pem",
        ]), files: ["/etc/relaydeck/mock-ca.pem": PEM.certificate]).apns)
        #expect(apns.watchBundleID == "com.example.relaydeck.watchkitapp")
        #expect(apns.productionURL == "http://127.0.0.1:2197")
        #expect(apns.sandboxURL == "https://apns-mock.test:8443")
        #expect(apns.caFile == "/etc/relaydeck/mock-ca.pem")
    }

    @Test func readsTheKeyFromAFile() throws {
        let config = try load(with(["APNS_PRIVATE_KEY": nil, "APNS_PRIVATE_KEY_FILE": "/etc/relaydeck/AuthKey.p8"]),
                              files: ["/etc/relaydeck/AuthKey.p8": PEM.privateKey])
        #expect(config.apns?.privateKeyPEM == Array(PEM.privateKey.utf8))
    }

    @Test func readsTheKeyFromACredential() throws {
        let config = try load(with(["APNS_PRIVATE_KEY": nil, "CREDENTIALS_DIRECTORY": "/run/credentials/r"]),
                              files: ["/run/credentials/r/APNS_PRIVATE_KEY": PEM.privateKey])
        #expect(config.apns?.privateKeyPEM == Array(PEM.privateKey.utf8))
    }

    @Test func unfoldsEscapedNewlinesInAOneLineKey() throws {
        let oneLine = PEM.privateKey.split(separator: "\n").joined(separator: "\\n")
        let config = try load(with(["APNS_PRIVATE_KEY": oneLine]))
        #expect(config.apns?.privateKeyPEM == Array(PEM.privateKey.dropLast().utf8))
    }

    @Test func namesEveryMissingVariable() {
        #expect(loadError(["APNS_TEAM_ID": "ABCDE12345"])?.description
            == "APNS_KEY_ID: not set, but APNS_TEAM_ID is; push needs all four of APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY, APNS_BUNDLE_ID (missing: APNS_KEY_ID, APNS_PRIVATE_KEY, APNS_BUNDLE_ID)")
        #expect(loadError(with(["APNS_BUNDLE_ID": nil]))?.description
            == "APNS_BUNDLE_ID: not set, but APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY are; push needs all four of APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY, APNS_BUNDLE_ID (missing: APNS_BUNDLE_ID)")
        #expect(loadError(with(["APNS_PRIVATE_KEY": ""]))?.variable == "APNS_PRIVATE_KEY")
    }

    @Test func aMissingKeyMessageShowsNoKey() throws {
        let error = try #require(loadError(["APNS_PRIVATE_KEY": PEM.privateKey]))
        #expect(error.variable == "APNS_TEAM_ID")
        #expect(!leaks("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkeyMaterial", in: error.description))
    }

    @Test func refusesMalformedIDs() {
        #expect(loadError(with(["APNS_TEAM_ID": "abcde12345"]))?.description
            == "APNS_TEAM_ID: expected 10 characters of A-Z and 0-9 (got \"abcde12345\")")
        #expect(loadError(with(["APNS_KEY_ID": "KEY123456"]))?.description
            == "APNS_KEY_ID: expected 10 characters of A-Z and 0-9 (got \"KEY123456\")")
        #expect(loadError(with(["APNS_KEY_ID": "KEY12345678"]))?.variable == "APNS_KEY_ID")
        #expect(loadError(with(["APNS_BUNDLE_ID": "com..example"]))?.description
            == "APNS_BUNDLE_ID: expected a bundle ID of letters, digits, - and ., like com.example.app (got \"com..example\")")
        #expect(loadError(with(["APNS_BUNDLE_ID": "com.example_app"]))?.variable == "APNS_BUNDLE_ID")
        #expect(loadError(with(["APNS_WATCH_BUNDLE_ID": ".watch"]))?.variable == "APNS_WATCH_BUNDLE_ID")
    }

    @Test func refusesAKeyThatIsNotAP8WithoutShowingIt() throws {
        let error = try #require(loadError(with(["APNS_PRIVATE_KEY": PEM.ecPrivateKey])))
        #expect(error.description == "APNS_PRIVATE_KEY: not a PEM private key; expected the .p8 file from Apple, which starts with -----BEGIN PRIVATE KEY-----")
        #expect(!leaks("MHcCAQEEIfake", in: error.description))
        let garbage = "sk_live_qx8vkw0jz"
        let fromFile = try #require(loadError(with(["APNS_PRIVATE_KEY": nil, "APNS_PRIVATE_KEY_FILE": "/k.p8"]), files: ["/k.p8": garbage]))
        #expect(fromFile.description == "APNS_PRIVATE_KEY_FILE: \"/k.p8\": not a PEM private key; expected the .p8 file from Apple, which starts with -----BEGIN PRIVATE KEY-----")
        #expect(!leaks(garbage, in: fromFile.description))
    }

    @Test func refusesTheKeyAndItsFileTogether() {
        #expect(loadError(with(["APNS_PRIVATE_KEY_FILE": "/k.p8"]))?.description
            == "APNS_PRIVATE_KEY: set together with APNS_PRIVATE_KEY_FILE; set only one of them")
    }

    @Test func refusesEndpointsThatAreNotOrigins() {
        #expect(loadError(with(["APNS_PRODUCTION_URL": "ftp://api.push.apple.com"]))?.description
            == "APNS_PRODUCTION_URL: expected https:// or http:// (got \"ftp://api.push.apple.com\")")
        #expect(loadError(with(["APNS_SANDBOX_URL": "https://mock.test/3/device"]))?.description
            == "APNS_SANDBOX_URL: expected an origin only, without a path, query or fragment (got \"https://mock.test/3/device\")")
    }

    @Test func checksTheCAFile() {
        #expect(loadError(with(["APNS_CA_FILE": "/ca.pem"]))?.description
            == "APNS_CA_FILE: cannot read \"/ca.pem\": No such file or directory")
        #expect(loadError(with(["APNS_CA_FILE": "/ca.pem"]), files: ["/ca.pem": "not a certificate"])?.description
            == "APNS_CA_FILE: \"/ca.pem\" holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)")
    }

    @Test func refusesOptionalSettingsWhilePushIsOff() {
        for name in ["APNS_WATCH_BUNDLE_ID", "APNS_PRODUCTION_URL", "APNS_SANDBOX_URL", "APNS_CA_FILE"] {
            #expect(loadError([name: "x"])?.description
                == "\(name): set, but push is off (APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY and APNS_BUNDLE_ID are not set)")
        }
    }

    @Test func leavesPushOffWhenAllAreEmpty() throws {
        #expect(try load(["APNS_TEAM_ID": "", "APNS_KEY_ID": "", "APNS_PRIVATE_KEY": "", "APNS_BUNDLE_ID": ""]).apns == nil)
    }
}
