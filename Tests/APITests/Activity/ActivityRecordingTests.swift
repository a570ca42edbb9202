@testable import API
import Clock
import JSON
import Relaydeck
import SQLite
import Testing

/// Which requests leave an entry in their key's activity log, and what it holds
/// (`rest-api.md#what-has-an-entry`, `rest-api.md#entry`). The waiting route of the tests
/// stands in for a key's route.
@Suite struct ActivityRecordingTests {
    let routes = WaitingRoutes()
    let api: APIHarness
    let token: String
    let keyID: String
    let secret: String

    init() throws {
        var configuration = APIConfiguration()
        configuration.requestsPerMinute = 5
        api = try APIHarness(configuration: configuration, extraGroups: { [routes] _ in [routes] })
        token = try api.createAccount().token
        (keyID, secret) = try api.createKey(token: token)
        routes.results["a"] = "done"
        routes.deleted = ["gone"]
    }

    /// The key's entries as the account reads them, newest first.
    func entries() throws -> [JSON] {
        let answer = try api.send("GET", "/v1/keys/\(keyID)/activity", [bearer(token)])
        try #require(answer.status == 200)
        return try #require(try answer.json()["items"]?.arrayValue)
    }

    /// The entry as JSON text with the given fields; the ID is the entry's own.
    func entryJSON(_ entry: JSON, at: String = "1760000000.0", action: String, status: String = "ok",
                   code: String = "null", message: String = "null", host: String = "null") throws -> String {
        let id = try #require(entry["id"]?.stringValue)
        return #"{"id":"\#(id)","at":\#(at),"surface":"rest","action":"\#(action)","status":"\#(status)","code":\#(code),"#
            + #""message":\#(message),"duration_ms":0,"client":null,"host":\#(host)}"#
    }

    func text(_ json: JSON) -> String {
        var writer = JSONWriter()
        writer.value(json)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func anAnsweredRequestHasOneEntryWithEveryField() throws {
        api.clock.wallMillis = 1_760_112_300_900
        #expect(try api.send("GET", "/test/things/a", [bearer(secret), ("X-Relaydeck-Host", " studio-mac ")]).status == 200)
        let found = try entries()
        #expect(found.count == 1)
        #expect(text(found[0]) == (try entryJSON(found[0], at: "1760112300.9", action: "GET /test/things/{thing_id}",
                                                 host: #""studio-mac""#)))
        #expect(Identifier.isWellFormed(Substring(found[0]["id"]?.stringValue ?? ""), prefix: "act_"))
    }

    /// The wall clock at receipt: the wall clock now, less the loop's time since the first byte.
    @Test func theWallTimeOfReceiptIsTheWallClockLessTheTimeSinceTheFirstByte() {
        let firstByte = Instant(nanoseconds: api.loopClock.now.nanoseconds - 2_500_000_000)
        #expect(api.handler.wallMillis(at: firstByte) == api.clock.wallMillis - 2500)
    }

    @Test func aFailedRequestHasItsCodeAndMessage() throws {
        #expect(try api.send("GET", "/test/things/gone", [apiKey(secret)]).status == 404)
        let found = try entries()
        #expect(text(found[0]) == (try entryJSON(found[0], action: "GET /test/things/{thing_id}", status: "error",
                                                 code: #""not_found""#, message: #""Thing not found.""#)))
    }

    /// The message names the fields, never their values (`rest-api.md#entry`).
    @Test func aValidationErrorNamesTheFieldsAndNeverTheirValues() throws {
        let planted = "mck_" + String(repeating: "S", count: 43)
        let answer = try api.send("GET", "/test/things/a?wait=\(planted)", [bearer(secret)])
        #expect(answer.status == 422)
        let found = try entries()
        #expect(text(found[0]) == (try entryJSON(found[0], action: "GET /test/things/{thing_id}", status: "error",
                                                 code: #""validation_failed""#, message: #""Invalid fields: wait.""#)))
        let stored = try api.store.read { db in
            let statement = try db.prepare("SELECT group_concat(coalesce(action, '') || coalesce(message, '') || coalesce(code, '')) FROM activity")
            _ = try statement.step()
            return statement.string(0) ?? ""
        }
        #expect(!stored.contains(planted) && !stored.contains("SSSS"))
    }

    @Test func aForbiddenRequestOfAKeyHasAnEntry() throws {
        #expect(try api.send("GET", "/v1/keys", [bearer(secret)]).status == 403)
        let found = try entries()
        #expect(text(found[0]) == (try entryJSON(found[0], action: "GET /v1/keys", status: "error", code: #""forbidden""#,
                                                 message: #""An API key cannot use this route.""#)))
    }

    @Test func aRequestAboveTheRateLimitHasAnEntry() throws {
        // A millisecond apart: entries of one millisecond have no order among them.
        for _ in 0..<5 {
            _ = try api.send("GET", "/test/things/a", [bearer(secret)])
            api.clock.advance(millis: 1)
        }
        let limited = try api.send("GET", "/test/things/a", [bearer(secret)])
        #expect(limited.status == 429)
        let found = try entries()
        #expect(found.count == 6)
        let seconds = try #require(limited.header("Retry-After"))
        #expect(text(found[0]) == (try entryJSON(found[0], at: "1760000000.005", action: "GET /test/things/{thing_id}", status: "error",
                                                 code: #""rate_limited""#,
                                                 message: #""Too many requests. Try again in \#(seconds) seconds.""#)))
    }

    /// `rest-api.md#what-has-an-entry`: none of these has one.
    @Test func requestsWithoutAKeyOrRefusedBeforeItsCredentialHaveNoEntry() throws {
        let refused: [(String, String, [(String, String)], String?, Int)] = [
            ("GET", "/test/things/a", [bearer(token)], nil, 200),
            ("GET", "/v1/keys", [bearer(token)], nil, 200),
            ("GET", "/nothing/here", [bearer(secret)], nil, 404),
            ("PUT", "/v1/devices/\(DeviceRouteTests.phone)", [bearer(secret)], "{not json", 400),
            ("POST", "/v1/keys/\(keyID)/activity", [bearer(secret)], nil, 405),
            ("GET", "/health", [bearer(secret)], nil, 200),
            ("GET", "/test/things/a", [bearer("mck_" + String(repeating: "A", count: 43))], nil, 401),
            ("GET", "/test/things/a", [], nil, 401),
        ]
        for (method, target, headers, body, status) in refused {
            #expect(try api.send(method, target, headers, body: body).status == status, "\(method) \(target)")
        }
        #expect(try entries().isEmpty)
        #expect(try api.store.read { db in
            let statement = try db.prepare("SELECT count(*) FROM activity")
            _ = try statement.step()
            return statement.int(0)
        } == 0)
    }
}
