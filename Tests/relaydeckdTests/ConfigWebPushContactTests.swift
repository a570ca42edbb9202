import Testing
@testable import relaydeckd

/// The VAPID `sub` (RFC 8292): always a `mailto:` or `https:` URI, since the push services that
/// check refuse every push of a token with any other.
@Suite struct ConfigWebPushContactTests {
    @Test(arguments: [
        ([:], "mailto:relaydeck@localhost"),
        (["PUBLIC_URL": "https://relay.example.com"], "https://relay.example.com"),
        // A server on a LAN over plain HTTP: its address is no contact a push service takes.
        (["PUBLIC_URL": "http://10.0.0.5:8080"], "mailto:relaydeck@localhost"),
        (["PUBLIC_URL": "http://localhost:3000"], "mailto:relaydeck@localhost"),
        (["PUBLIC_URL": "http://10.0.0.5:8080", "WEB_PUSH_SUBJECT": "mailto:ops@example.org"], "mailto:ops@example.org"),
        (["PUBLIC_URL": "https://relay.example.com", "WEB_PUSH_SUBJECT": "https://example.org/contact"], "https://example.org/contact"),
    ])
    func theContactIsTheSubjectElseAnHTTPSPublicURLElseAPlaceholder(environment: [String: String], contact: String) throws {
        #expect(try load(environment).webPushContact == contact)
    }

    @Test func aContactThatApplesServiceRefusesIsNamedWithTheReason() throws {
        #expect(try load([:]).webPushContactProblem == "it names localhost, which is not a public name")
        #expect(try load(["PUBLIC_URL": "https://relay.example.com"]).webPushContactProblem == nil)
        #expect(try load(["PUBLIC_URL": "https://192.0.2.7"]).webPushContactProblem == "it names 192.0.2.7, which is not a public name")
        #expect(try load(["WEB_PUSH_SUBJECT": "mailto:me@nas.local"]).webPushContactProblem == "it names nas.local, which is not a public name")
    }

    @Test(arguments: ["http://example.org", "example.org", "mailto:", "https://"])
    func aSubjectThatIsNeitherMailtoNorHTTPSStopsTheStart(text: String) {
        #expect(loadError(["WEB_PUSH_SUBJECT": text])?.description.hasPrefix("WEB_PUSH_SUBJECT: must be a mailto: address or an https: URL") == true)
    }
}
