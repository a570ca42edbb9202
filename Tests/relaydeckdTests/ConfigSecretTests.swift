import Crypto
import Testing
@testable import relaydeckd

/// `APP_TOTP_SECRET` in its three forms, and that no message ever shows a secret.
@Suite struct ConfigSecretTests {
    /// RFC 6238's SHA-256 seed, the 32 bytes "1234...9012".
    static let seed = Array("12345678901234567890123456789012".utf8)
    static let seedBase32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA===="
    /// Not base32, and made of characters no message contains.
    static let badSecret = "qx8!vk#w0@jz~%Q"
    static let credentials = "/run/credentials/relaydeck.service"

    @Test func decodesTheBase32Secret() throws {
        #expect(try load(["APP_TOTP_SECRET": Self.seedBase32]).appTOTPSecret == Self.seed)
    }

    @Test func acceptsLowercaseGroupedUnpaddedSecrets() throws {
        let grouped = "gezd gnbv gy3t qojq gezd gnbv gy3t qojq gezd gnbv gy3t qojq geza"
        #expect(try load(["APP_TOTP_SECRET": grouped]).appTOTPSecret == Self.seed)
    }

    @Test func refusesAnInvalidSecretWithoutShowingIt() throws {
        let error = try #require(loadError(["APP_TOTP_SECRET": Self.badSecret]))
        #expect(error.description == "APP_TOTP_SECRET: not base32 (RFC 4648: letters A-Z and digits 2-7, = padding optional)")
        #expect(!leaks(Self.badSecret, in: error.description))
    }

    @Test func refusesASecretShorterThan16Bytes() throws {
        // "MZXW6YTBOI" is "foobar", 6 bytes.
        let error = try #require(loadError(["APP_TOTP_SECRET": "MZXW6YTBOI"]))
        #expect(error.description == "APP_TOTP_SECRET: decodes to 6 bytes; at least 16 are needed (RFC 4226), 32 random bytes are usual")
        #expect(!leaks("MZXW6YTBOI", in: error.description))
        let fifteen = Base32.encode(Array(0..<15))
        #expect(loadError(["APP_TOTP_SECRET": fifteen])?.message.hasPrefix("decodes to 15 bytes") == true)
        #expect(try load(["APP_TOTP_SECRET": Base32.encode(Array(0..<16))]).appTOTPSecret?.count == 16)
    }

    @Test func readsTheSecretFileAndTrimsTheTrailingNewline() throws {
        let config = try load(["APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"], files: ["/etc/relaydeck/totp": Self.seedBase32 + "\n"])
        #expect(config.appTOTPSecret == Self.seed)
        let crlf = try load(["APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"], files: ["/etc/relaydeck/totp": Self.seedBase32 + " \r\n\t"])
        #expect(crlf.appTOTPSecret == Self.seed)
    }

    @Test func namesTheFileButNotItsContents() throws {
        let error = try #require(loadError(["APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"], files: ["/etc/relaydeck/totp": Self.badSecret + "\n"]))
        #expect(error.description == "APP_TOTP_SECRET_FILE: \"/etc/relaydeck/totp\": not base32 (RFC 4648: letters A-Z and digits 2-7, = padding optional)")
        #expect(!leaks(Self.badSecret, in: error.description))
    }

    @Test func reportsAMissingSecretFile() {
        #expect(loadError(["APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"])?.description
            == "APP_TOTP_SECRET_FILE: cannot read \"/etc/relaydeck/totp\": No such file or directory")
        #expect(loadError(["APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"], unreadable: ["/etc/relaydeck/totp"])?.description
            == "APP_TOTP_SECRET_FILE: cannot read \"/etc/relaydeck/totp\": Permission denied")
    }

    @Test func refusesTheSecretAndItsFileTogether() throws {
        let error = try #require(loadError(["APP_TOTP_SECRET": Self.badSecret, "APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"]))
        #expect(error.description == "APP_TOTP_SECRET: set together with APP_TOTP_SECRET_FILE; set only one of them")
        #expect(!leaks(Self.badSecret, in: error.description))
    }

    @Test func anEmptySecretLeavesTheFileInCharge() throws {
        let config = try load(["APP_TOTP_SECRET": "", "APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp"], files: ["/etc/relaydeck/totp": Self.seedBase32])
        #expect(config.appTOTPSecret == Self.seed)
    }

    @Test func resolvesARelativeFileAgainstTheCredentialsDirectory() throws {
        let config = try load(
            ["APP_TOTP_SECRET_FILE": "totp", "CREDENTIALS_DIRECTORY": Self.credentials],
            files: [Self.credentials + "/totp": Self.seedBase32, "totp": "WRONG"]
        )
        #expect(config.appTOTPSecret == Self.seed)
    }

    @Test func resolvesARelativeFileAgainstTheWorkingDirectoryWithoutCredentials() throws {
        let config = try load(["APP_TOTP_SECRET_FILE": "secrets/totp"], files: ["secrets/totp": Self.seedBase32])
        #expect(config.appTOTPSecret == Self.seed)
    }

    @Test func keepsAnAbsoluteFileAbsoluteUnderCredentials() throws {
        let config = try load(
            ["APP_TOTP_SECRET_FILE": "/etc/relaydeck/totp", "CREDENTIALS_DIRECTORY": Self.credentials],
            files: ["/etc/relaydeck/totp": Self.seedBase32]
        )
        #expect(config.appTOTPSecret == Self.seed)
    }

    @Test func namesTheResolvedPathWhenACredentialFileIsMissing() {
        #expect(loadError(["APP_TOTP_SECRET_FILE": "totp", "CREDENTIALS_DIRECTORY": Self.credentials + "/"])?.description
            == "APP_TOTP_SECRET_FILE: cannot read \"/run/credentials/relaydeck.service/totp\": No such file or directory")
    }

    @Test func findsACredentialNamedLikeTheVariable() throws {
        let config = try load(["CREDENTIALS_DIRECTORY": Self.credentials], files: [Self.credentials + "/APP_TOTP_SECRET": Self.seedBase32 + "\n"])
        #expect(config.appTOTPSecret == Self.seed)
    }

    @Test func leavesTheCheckOffWhenNoCredentialExists() throws {
        #expect(try load(["CREDENTIALS_DIRECTORY": Self.credentials]).appTOTPSecret == nil)
    }

    @Test func preferTheVariableOverACredential() throws {
        let config = try load(
            ["APP_TOTP_SECRET": Self.seedBase32, "CREDENTIALS_DIRECTORY": Self.credentials],
            files: [Self.credentials + "/APP_TOTP_SECRET": "MZXW6YTBOI"]
        )
        #expect(config.appTOTPSecret == Self.seed)
    }

    @Test func reportsAnUnreadableCredential() {
        let path = Self.credentials + "/APP_TOTP_SECRET"
        #expect(loadError(["CREDENTIALS_DIRECTORY": Self.credentials], unreadable: [path])?.description
            == "APP_TOTP_SECRET: credential: cannot read \"/run/credentials/relaydeck.service/APP_TOTP_SECRET\": Permission denied")
    }

    @Test func namesTheCredentialButNotItsContents() throws {
        let error = try #require(loadError(["CREDENTIALS_DIRECTORY": Self.credentials], files: [Self.credentials + "/APP_TOTP_SECRET": Self.badSecret]))
        #expect(error.description
            == "APP_TOTP_SECRET: credential \"/run/credentials/relaydeck.service/APP_TOTP_SECRET\": not base32 (RFC 4648: letters A-Z and digits 2-7, = padding optional)")
        #expect(!leaks(Self.badSecret, in: error.description))
    }

    @Test func printingAConfigShowsNoSecret() throws {
        let config = try load([
            "APP_TOTP_SECRET": Self.seedBase32,
            "APNS_TEAM_ID": "ABCDE12345", "APNS_KEY_ID": "KEY1234567", "APNS_BUNDLE_ID": "com.example.app",
            "APNS_PRIVATE_KEY": PEM.privateKey,
        ])
        var dumped = ""
        dump(config, to: &dumped)
        for text in ["\(config)", String(reflecting: config), dumped, "\(config.apns.map { "\($0)" } ?? "")"] {
            #expect(!leaks("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkeyMaterial", in: text))
            #expect(!leaks(Self.seedBase32, in: text))
            #expect(!text.contains("49, 50, 51"))
            #expect(text.contains("APNS_TEAM_ID=ABCDE12345") || text.contains("ABCDE12345"))
        }
        #expect("\(config)".contains("APP_TOTP_SECRET=(set) "))
    }
}
