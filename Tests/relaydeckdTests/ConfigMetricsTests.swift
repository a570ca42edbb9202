import EventLoop
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

/// `METRICS_LISTEN`: the metrics' own address, off by default.
@Suite struct ConfigMetricsListenTests {
    @Test("unset it is off; set it takes the form of LISTEN and check-config shows it")
    func parses() throws {
        #expect(try load([:]).metricsListen == nil)
        #expect(try load([:]).summary.first { $0.variable == "METRICS_LISTEN" }?.value == "(off)")
        let config = try load(["METRICS_LISTEN": "127.0.0.1:9464"])
        #expect(config.metricsListen == .tcp(host: IPAddress(ipv4: 0x7F00_0001), port: 9464))
        #expect(config.summary.first { $0.variable == "METRICS_LISTEN" }?.value == "127.0.0.1:9464")
        #expect(try load(["METRICS_LISTEN": "unix:/run/relaydeck/metrics.sock"]).metricsListen == .unix(path: "/run/relaydeck/metrics.sock"))
    }

    @Test("a bad address, or the address of LISTEN, is refused and named")
    func refuses() throws {
        #expect(loadError(["METRICS_LISTEN": "somewhere"])?.variable == "METRICS_LISTEN")
        let same = try #require(loadError(["LISTEN": "127.0.0.1:8080", "METRICS_LISTEN": "127.0.0.1:8080"]))
        #expect(same.description.hasPrefix("METRICS_LISTEN: is the address of LISTEN"))
        #expect(try load(["LISTEN": "127.0.0.1:0", "METRICS_LISTEN": "127.0.0.1:0"]).metricsListen != nil)
    }
}
