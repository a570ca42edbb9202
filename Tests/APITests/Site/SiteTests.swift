@testable import API
import Testing

/// The website's pieces: the origin it gives out, escaping, the pages, the install script.
@Suite struct SiteTests {
    @Test func aHostHeaderIsUsedOnlyWhenItIsAPlainHostAndPort() {
        for host in ["relaydeck.test", "relaydeck.test:8443", "127.0.0.1:8080", "[::1]:8080", "[fe80::1]", "a-b.example"] {
            #expect(SiteOrigin.isPlainHost(host), "\(host)")
        }
        for host in ["", "-x", "a b", "a\"b", "a'b", "a;b", "a$(id)", "a`id`", "[::1", "::1]", "[[::1]]", "a/b", "a\\b",
                     "é.example", String(repeating: "a", count: 262)] {
            #expect(!SiteOrigin.isPlainHost(host), "\(host)")
        }
    }

    @Test func thePublicURLWinsOverTheHostHeader() throws {
        var configuration = APIConfiguration()
        configuration.publicOrigin = "https://tasks.example.com"
        let api = try APIHarness(configuration: configuration)
        let answer = try api.send("GET", "/install")
        #expect(answer.status == 200)
        #expect(answer.text.contains("SERVER='https://tasks.example.com'\n"))
        #expect(!answer.text.contains("relaydeck.localhost"))
        #expect(answer.headers.contains("Cache-Control: no-cache"))
    }

    @Test func withoutAPublicURLTheSchemeFollowsTLS() throws {
        var configuration = APIConfiguration()
        configuration.servesHTTPS = true
        let api = try APIHarness(configuration: configuration)
        let answer = try api.send("GET", "/")
        #expect(answer.text.contains("<code>https://relaydeck.localhost/mcp</code>"))
        #expect(answer.headers.contains("Cache-Control: no-store"))
        #expect(answer.pattern == "/")
    }

    @Test func featuresShowOnOrOff() throws {
        var configuration = APIConfiguration()
        configuration.pushEnabled = true
        configuration.appCodeSecret = Array(repeating: 7, count: 20)
        let text = try APIHarness(configuration: configuration).send("GET", "/").text
        #expect(text.contains(#"Push notifications (APNs)</td><td><span class="on">on</span>"#))
        #expect(text.contains(#"App Attest for new accounts</td><td><span class="off">off</span>"#))
        #expect(text.contains(#"App codes (<code>X-App-Code</code>)</td><td><span class="on">on</span>"#))
    }

    @Test func escapingCoversTheFiveCharacters() {
        #expect(SitePage.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(SitePage.escape("plain é 👍🏽") == "plain é 👍🏽")
    }

    @Test func everyDocsPageExistsAndOthersDoNot() throws {
        let api = try APIHarness()
        for name in ["", "/agents", "/mcp", "/api", "/settings"] {
            let answer = try api.send("GET", "/docs" + name)
            #expect(answer.status == 200, "\(name)")
            #expect(answer.pattern == (name.isEmpty ? "/docs" : "/docs/{page}"))
        }
        #expect(try api.send("GET", "/docs/install.sh").status == 404)
        #expect(DocsPages.page(named: "..") == nil)
    }

    @Test func theScriptHasNoPlaceholderLeft() {
        let text = String(decoding: InstallScript.text(for: "http://h:1"), as: UTF8.self)
        #expect(!text.contains(InstallScript.placeholder))
        #expect(text.hasPrefix("#!/bin/sh\n"))
        #expect(text.hasSuffix("exit 0\n"))
        // The server's address, the hook's own copy included.
        #expect(text.ranges(of: "SERVER='http://h:1'").count == 2)
    }

    @Test func theStyleHashMatchesTheStyle() {
        #expect(SitePage.contentSecurityPolicy.contains(SitePage.styleSource))
        #expect(!SitePage.contentSecurityPolicy.contains("unsafe-inline"))
    }
}
