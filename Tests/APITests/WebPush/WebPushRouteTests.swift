@testable import API
import Clock
import Crypto
import EventLoop
import JSON
import Relaydeck
import Testing

/// `/v1/web-push/...` (issue 21): the VAPID key and the browsers' subscriptions.
@Suite struct WebPushRouteTests {
    static let endpoint = "https://updates.push.example.net/wpush/v2/gAAAAABm"
    let api: APIHarness
    let token: String
    let p256dh: String
    let auth = Base64.encode(Array(1...16), urlSafe: true, padded: false)
    /// What DNS says of the endpoints' names: the push service's is public.
    let names = NameTable()

    init() throws {
        api = try APIHarness()
        token = try api.createAccount().token
        p256dh = Base64.encode(try P256.PrivateKey().publicKey, urlSafe: true, padded: false)
        names.addresses["updates.push.example.net"] = [IPAddress("93.184.215.14")!, IPAddress("2606:2800:21f:cb07:6820:80da:af6b:8b2c")!]
        api.handler.context.pushHostCheck = names.check
    }

    /// The body of `PushSubscription.toJSON()`, with `extra` members after it.
    func body(endpoint: String = endpoint, p256dh: String? = nil, auth: String? = nil, extra: String = "") -> String {
        #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh ?? self.p256dh)","auth":"\#(auth ?? self.auth)"}\#(extra)}"#
    }

    func put(_ body: String, id: String = "wps_laptop", token: String? = nil) throws -> Answer {
        try api.send("PUT", "/v1/web-push/subscriptions/\(id)", [bearer(token ?? self.token)], body: body)
    }

    @Test func theKeyIsAPointOnP256AndStaysTheSame() async throws {
        let answer = try api.send("GET", "/v1/web-push/key", [bearer(token)])
        #expect(answer.status == 200)
        let text = try #require(answer.json()["public_key"]?.stringValue)
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        let point = try #require(Base64.decode(text))
        #expect(P256.PublicKey(uncompressed: point) != nil)
        // The stored key, read again by a new service over the same store, is the same one.
        let again = WebPushSubscriptions(store: api.services.store, clock: api.clock)
        #expect(try await again.vapidKey().publicKey == point)
    }

    @Test func putStoresTheSubscriptionAndGivesItBackWithoutTheKeys() throws {
        let answer = try put(body(extra: #","label":"Firefox on the laptop""#))
        #expect(answer.status == 200)
        #expect(answer.text == #"{"id":"wps_laptop","endpoint":"\#(Self.endpoint)","label":"Firefox on the laptop","expiration_time":null,"created_at":1760000000.0}"#)
        #expect(!answer.text.contains(p256dh) && !answer.text.contains(auth))
        let listed = try api.send("GET", "/v1/web-push/subscriptions", [bearer(token)])
        #expect(listed.text == #"{"subscriptions":[\#(answer.text)]}"#)
    }

    @Test func replacingKeepsCreatedAtAndTakesTheNewKeys() async throws {
        _ = try put(body())
        api.clock.advance(millis: 5000)
        let newKey = Base64.encode(try P256.PrivateKey().publicKey, urlSafe: true, padded: false)
        let answer = try put(#"{"endpoint":"\#(Self.endpoint)/2","expirationTime":1760086400000,"keys":{"p256dh":"\#(newKey)","auth":"\#(auth)"}}"#)
        #expect(answer.text == #"{"id":"wps_laptop","endpoint":"\#(Self.endpoint)/2","label":null,"expiration_time":1760086400.0,"created_at":1760000000.0}"#)
        let accountID = try #require(try api.send("GET", "/v1/account", [bearer(token)]).json()["id"]?.stringValue)
        let stored = try await api.services.webPush.get(accountID: accountID, id: "wps_laptop")
        #expect(Base64.encode(stored.p256dh, urlSafe: true, padded: false) == newKey)
    }

    @Test func everyProblemOfTheBodyAndTheIDIsOne422NamingTheField() throws {
        var offCurve = try #require(Base64.decode(p256dh))
        offCurve[64] ^= 1
        let answer = try put(
            #"{"endpoint":"http://push.example/x","expirationTime":"soon","keys":{"p256dh":"\#(Base64.encode(offCurve, urlSafe: true, padded: false))","auth":"AAAA","x":1},"label":"","extra":true}"#,
            id: "wps_")
        #expect(answer.status == 422)
        #expect(answer.text == validationBody([
            ("endpoint", "Must be a push service's URL: it must be an https: URL."),
            ("expirationTime", "Must be an integer from 0 to 253,402,300,799,999."),
            ("extra", "Unknown field."),
            ("keys.auth", "Must be base64url of 16 bytes."),
            ("keys.p256dh", "Must be a P-256 public key: base64url of an uncompressed point."),
            ("keys.x", "Unknown field."),
            ("label", "Must be 1 to 64 characters."),
            ("subscription_id", "Must be wps_ plus 1 to 64 letters, digits, _ or -."),
        ]))
    }

    @Test func missingKeysAreRequired() throws {
        let answer = try put(#"{"endpoint":"\#(Self.endpoint)","keys":{}}"#)
        #expect(answer.text == validationBody([("keys.auth", "Required."), ("keys.p256dh", "Required.")]))
        #expect(try put(#"{"keys":[]}"#).text == validationBody([("endpoint", "Required."), ("keys", "Must be an object.")]))
    }

    @Test func anEndpointSmallInCharactersButLongInBytesIsRefused() throws {
        // 700 three-byte characters: 700 characters, 2,100 bytes; and not ASCII anyway.
        let long = "https://push.example/" + String(repeating: "\u{20AC}", count: 700)
        #expect(try put(body(endpoint: long)).text == validationBody([("endpoint", "Must be a push service's URL: it is longer than 2,048 bytes.")]))
        let ascii = "https://push.example/" + String(repeating: "a", count: 2048 - 21)
        names.addresses["push.example"] = [IPAddress("93.184.215.14")!]
        #expect(try put(body(endpoint: ascii)).status == 200)
        #expect(try put(body(endpoint: ascii + "a")).status == 422)
    }

    @Test func aLabelSmallInCharactersButLongInBytesIsRefused() throws {
        // 64 characters (each a family of four: 25 bytes of UTF-8), 1,600 bytes.
        let family = String(repeating: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", count: 64)
        #expect(try put(body(extra: #","label":"\#(family)""#)).text
            == validationBody([("label", "Must be at most 256 bytes of UTF-8 as sent.")]))
        // 64 four-byte characters are 256 bytes: taken.
        let foxes = String(repeating: "\u{1F98A}", count: 64)
        #expect(try put(body(extra: #","label":"\#(foxes)""#)).status == 200)
    }

    @Test func pushServicesOnThisMachineOrItsNetworkAreRefusedUnlessAllowed() throws {
        for endpoint in ["https://127.0.0.1:8443/p", "https://[::1]/p", "https://10.0.0.7/p", "https://192.168.1.2/p",
                         "https://169.254.169.254/latest", "https://localhost/p", "https://push.localhost/p",
                         "https://nas.local/p", "https://[::ffff:127.0.0.1]/p", "https://0.0.0.0/p"] {
            #expect(try put(body(endpoint: endpoint)).text == validationBody([
                ("endpoint", "Must be a push service on the internet, not an address of this machine or its network."),
            ]), "\(endpoint)")
        }
        var configuration = APIConfiguration()
        configuration.webPushAllowsPrivateHosts = true
        let allowing = try APIHarness(configuration: configuration)
        let token = try allowing.createAccount().token
        let answer = try allowing.send("PUT", "/v1/web-push/subscriptions/wps_mock", [bearer(token)], body: body(endpoint: "https://127.0.0.1:8443/p"))
        #expect(answer.status == 200)
    }

    @Test func aNameIsLookedUpBeforeTheSubscriptionIsStoredAndOneThatLeadsToAPrivateAddressIsRefused() throws {
        names.addresses["push.rebind.example"] = [IPAddress("93.184.215.14")!, IPAddress("127.0.0.1")!]
        names.addresses["metadata.example"] = [IPAddress("169.254.169.254")!]
        names.addresses["v6.lan.example"] = [IPAddress("fd00::7")!]
        names.addresses["mapped.example"] = [IPAddress("::ffff:10.0.0.1")!]
        for host in ["push.rebind.example", "metadata.example", "v6.lan.example", "mapped.example"] {
            let refused = try put(body(endpoint: "https://\(host)/p"))
            #expect(refused.text == validationBody([
                ("endpoint", "Must be a push service on the internet, not an address of this machine or its network."),
            ]), "\(host)")
        }
        #expect(names.asked == ["push.rebind.example", "metadata.example", "v6.lan.example", "mapped.example"])
        #expect(try api.send("GET", "/v1/web-push/subscriptions", [bearer(token)]).text == #"{"subscriptions":[]}"#)
        // The public name was looked up too, and stored.
        #expect(try put(body()).status == 200)
        #expect(names.asked.last == "updates.push.example.net")
        #expect(api.handler.context.pushHostLookups.count == 0)
    }

    @Test func aNameWithoutAnAddressIs422AndALookupThatFailsForNowIs503() throws {
        let unknown = try put(body(endpoint: "https://push.nowhere.example/p"))
        #expect(unknown.text == validationBody([("endpoint", "Must be a push service on the internet: its host name has no address.")]))
        names.unreachable.insert("updates.push.example.net")
        let failed = try put(body())
        #expect(failed.status == 503)
        #expect(failed.header("retry-after") == "5")
        #expect(failed.text == errorBody("unavailable", "The push service's host name could not be looked up now. Try again in 5 seconds."))
        #expect(try api.send("GET", "/v1/web-push/subscriptions", [bearer(token)]).text == #"{"subscriptions":[]}"#)
    }

    @Test func aBodyRefusedOnItsOwnIsNeverLookedUp() throws {
        #expect(try put(body(auth: "c2hvcnQ")).status == 422)
        #expect(try put(body(), id: "nope").status == 422)
        #expect(names.asked.isEmpty)
    }

    @Test func literalAddressesAndAllowedPrivateHostsNeedNoLookup() throws {
        #expect(try put(body(endpoint: "https://93.184.215.14/p")).status == 200)
        var configuration = APIConfiguration()
        configuration.webPushAllowsPrivateHosts = true
        let allowing = try APIHarness(configuration: configuration)
        allowing.handler.context.pushHostCheck = names.check
        let token = try allowing.createAccount().token
        let answer = try allowing.send("PUT", "/v1/web-push/subscriptions/wps_lan", [bearer(token)],
                                       body: body(endpoint: "https://push.lan.example/p"))
        #expect(answer.status == 200)
        #expect(names.asked.isEmpty)
    }

    @Test func theEleventhNewSubscriptionIsAConflictAndReplacingOneIsNot() throws {
        for index in 1...10 {
            #expect(try put(body(endpoint: Self.endpoint + "\(index)"), id: "wps_\(index)").status == 200)
        }
        let refused = try put(body(endpoint: Self.endpoint + "11"), id: "wps_11")
        #expect(refused.status == 409)
        #expect(refused.text == errorBody("conflict", "An account can have 10 Web Push subscriptions."))
        #expect(try put(body(endpoint: Self.endpoint + "3b"), id: "wps_3").status == 200)
    }

    @Test func oneEndpointBelongsToOneSubscriptionEvenAcrossAccounts() throws {
        _ = try put(body(), id: "wps_old")
        let (_, other) = try api.createAccount()
        #expect(try put(body(), id: "wps_new", token: other).status == 200)
        #expect(try api.send("GET", "/v1/web-push/subscriptions", [bearer(token)]).text == #"{"subscriptions":[]}"#)
    }

    @Test func deleteIs204ThenAnUnknownOneIs404AndAnotherAccountCannotTouchIt() throws {
        _ = try put(body())
        let (_, other) = try api.createAccount()
        #expect(try api.send("DELETE", "/v1/web-push/subscriptions/wps_laptop", [bearer(other)]).status == 404)
        let deleted = try api.send("DELETE", "/v1/web-push/subscriptions/wps_laptop", [bearer(token)])
        #expect(deleted.status == 204)
        let again = try api.send("DELETE", "/v1/web-push/subscriptions/wps_laptop", [bearer(token)])
        #expect(again.text == errorBody("not_found", "Web Push subscription not found."))
    }

    @Test func anAPIKeyIsForbiddenAndADeletedAccountsSubscriptionsArePurged() async throws {
        let (_, secret) = try api.createKey(token: token)
        for (method, path) in [("GET", "/v1/web-push/key"), ("GET", "/v1/web-push/subscriptions"),
                               ("PUT", "/v1/web-push/subscriptions/wps_a"), ("DELETE", "/v1/web-push/subscriptions/wps_a")] {
            let answer = try api.send(method, path, [bearer(secret)], body: method == "PUT" ? body() : nil)
            #expect(answer.status == 403, "\(method) \(path)")
        }
        _ = try put(body())
        let accountID = try #require(try api.send("GET", "/v1/account", [bearer(token)]).json()["id"]?.stringValue)
        #expect(try api.send("DELETE", "/v1/account", [bearer(token)]).status == 204)
        #expect(try put(body()).status == 401)
        let purger = Purger(store: api.services.store)
        while try await purger.step() {}
        #expect(try await api.services.webPush.list(accountID: accountID).isEmpty)
        #expect(try await !purger.hasWork(), "the account itself is gone too")
    }
}
