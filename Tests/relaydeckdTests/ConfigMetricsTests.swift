import Testing
@testable import relaydeckd

/// `METRICS_TOKEN`: the bearer token of `/metrics`, checked at start and never shown.
@Suite struct ConfigMetricsTests {
    static let token = "b7f0c2a9e4d1f6a3c8e5b2d9"

    @Test("unset, there is no metrics token and check-config says off")
    func offByDefault() throws {
        let config = try load([:])
        #expect(config.metricsToken == nil)
        #expect(config.summary.first { $0.variable == "METRICS_TOKEN" }?.value == "(off)")
    }

    @Test("the token is taken as written, from the variable or a file without its newline, and shown only as set")
    func takesTheToken() throws {
        let config = try load(["METRICS_TOKEN": Self.token])
        #expect(config.metricsToken == Array(Self.token.utf8))
        #expect(config.summary.first { $0.variable == "METRICS_TOKEN" }?.value == "(set)")
        #expect(!leaks(Self.token, in: config.description))
        let fromFile = try load(["METRICS_TOKEN_FILE": "/etc/relaydeck/metrics"], files: ["/etc/relaydeck/metrics": Self.token + "\n"])
        #expect(fromFile.metricsToken == Array(Self.token.utf8))
    }

    @Test("a token shorter than 16 characters is refused without being shown")
    func refusesAShortToken() throws {
        let short = "qx8vk3w0jz5Q7pr"
        let error = try #require(loadError(["METRICS_TOKEN": short]))
        #expect(error.description == "METRICS_TOKEN: has 15 characters; at least 16 are needed (openssl rand -hex 32 makes one)")
        #expect(!leaks(short, in: error.description))
        #expect(try load(["METRICS_TOKEN": short + "x"]).metricsToken?.count == 16)
    }

    @Test("a token with a space or a control character is refused without being shown")
    func refusesABadCharacter() throws {
        for bad in ["qx8vk3w0 jz5Q7prT", "qx8vk3w0\u{7}jz5Q7prT", "qx8vk3w0jz5Q7prTé"] {
            let error = try #require(loadError(["METRICS_TOKEN": bad]))
            #expect(error.variable == "METRICS_TOKEN")
            #expect(error.message.hasPrefix("holds a space or a character outside visible ASCII"))
            #expect(!leaks(bad, in: error.description))
        }
    }
}
