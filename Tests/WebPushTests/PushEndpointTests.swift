import EventLoop
import Testing
@testable import WebPush

@Suite struct PushEndpointTests {
    @Test func thePushServicesEndpointsAreReadWithTheirOriginAndTarget() throws {
        let fcm = try PushEndpoint("https://fcm.googleapis.com/fcm/send/dJ3x:APA91b")
        #expect(fcm.host == "fcm.googleapis.com" && fcm.port == 443)
        #expect(fcm.origin == "https://fcm.googleapis.com")
        #expect(fcm.target == "/fcm/send/dJ3x:APA91b")
        let mock = try PushEndpoint("https://127.0.0.1:8443/push/abc?x=1")
        #expect(mock.origin == "https://127.0.0.1:8443" && mock.authority == "127.0.0.1:8443")
        #expect(mock.target == "/push/abc?x=1")
        let v6 = try PushEndpoint("https://[::1]:9000/p")
        #expect(v6.host == "::1" && v6.port == 9000 && v6.origin == "https://[::1]:9000")
        #expect(try PushEndpoint("https://Push.Example.NET").target == "/")
        #expect(try PushEndpoint("https://Push.Example.NET").host == "push.example.net")
    }

    @Test func endpointsThisServerWillNotSendToAreRefusedWithTheReason() {
        let refused: [(String, String)] = [
            ("http://push.example/a", "must be an https: URL"),
            ("ftp://push.example/a", "must be an https: URL"),
            ("https://user:pw@push.example/a", "must not carry a user name or password"),
            ("https://push.example/a#frag", "must not have a fragment"),
            ("https://push.example/a b", "must be a URL of visible ASCII characters"),
            ("https://push.example/\u{e9}", "must be a URL of visible ASCII characters"),
            ("https://push.example:0/a", "has a port that is not 1 to 65535"),
            ("https://push.example:65536/a", "has a port that is not 1 to 65535"),
            ("https://push.example:/a", "has a port that is not 1 to 65535"),
            ("https:///a", "has no host"),
            ("https://[::1/a", "has an unclosed [ in its host"),
            ("https://[1.2.3.4]/a", "has a bracketed host that is not an IPv6 address"),
            ("https://-bad.example/a", "has a host that is neither a DNS name nor an IP address"),
            ("https://a..example/a", "has a host that is neither a DNS name nor an IP address"),
            ("https://push.example/" + String(repeating: "a", count: 2048), "is longer than 2,048 bytes"),
        ]
        for (url, reason) in refused {
            #expect(throws: PushEndpoint.Refusal(reason: reason), "\(url.prefix(60))") { try PushEndpoint(url) }
        }
        // The bound is in bytes: 2,048 of them pass.
        let longest = "https://push.example/" + String(repeating: "a", count: 2048 - 21)
        #expect((try? PushEndpoint(longest)) != nil)
    }

    @Test func onlyPublicAddressesArePublic() {
        let notPublic = ["0.0.0.0", "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                         "169.254.169.254", "100.64.0.1", "224.0.0.1", "255.255.255.255", "::", "::1",
                         "fe80::1", "fd00::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "ff02::1", "2001:db8::1"]
        for text in notPublic {
            #expect(!PushAddressRule.isPublic(IPAddress(text)!), "\(text)")
        }
        for text in ["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8", "142.250.74.42"] {
            #expect(PushAddressRule.isPublic(IPAddress(text)!), "\(text)")
        }
    }
}
