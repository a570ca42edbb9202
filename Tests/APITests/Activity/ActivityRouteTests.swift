@testable import API
import Clock
import JSON
import Relaydeck
import Testing

/// `GET /v1/keys/{key_id}/activity` (`rest-api.md#activity-log`): newest first, `limit`, an
/// opaque cursor, the account's keys only.
@Suite struct ActivityRouteTests {
    let routes = WaitingRoutes()
    let api: APIHarness
    let token: String
    let keyID: String
    let secret: String

    init() throws {
        api = try APIHarness(extraGroups: { [routes] _ in [routes] })
        token = try api.createAccount().token
        (keyID, secret) = try api.createKey(token: token)
    }

    func read(_ query: String = "", key: String? = nil, token: String? = nil) throws -> Answer {
        try api.send("GET", "/v1/keys/\(key ?? keyID)/activity\(query)", [bearer(token ?? self.token)])
    }

    /// Requests of the key to `/test/things/<name>`, one a second.
    func makeEntries(_ names: [String]) throws {
        for name in names {
            _ = try api.send("GET", "/test/things/\(name)", [bearer(secret)])
            api.clock.advance(millis: 1000)
        }
    }

    func page(_ answer: Answer) throws -> (ats: [Double], next: String?) {
        #expect(answer.status == 200)
        let json = try answer.json()
        let items = try #require(json["items"]?.arrayValue)
        let ats = items.compactMap { $0["at"]?.doubleValue }
        return (ats, json["next_cursor"]?.stringValue)
    }

    @Test func aKeyWithoutRequestsHasAnEmptyLastPage() throws {
        let answer = try read()
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        #expect(answer.text == #"{"items":[],"next_cursor":null}"#)
        #expect(answer.pattern == "/v1/keys/{key_id}/activity")
    }

    @Test func pagesAreNewestFirstAndTheCursorVisitsEachEntryOnce() throws {
        try makeEntries(["a", "b", "c", "d", "e"])
        var seen: [Double] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let (ats, next) = try page(try read(query))
            seen += ats
            cursor = next
            pages += 1
        } while cursor != nil
        #expect(pages == 3)
        #expect(seen == [1_760_000_004, 1_760_000_003, 1_760_000_002, 1_760_000_001, 1_760_000_000])
        // The default page holds them all and says it is the last.
        let all = try page(try read())
        #expect(all.ats.count == 5 && all.next == nil)
    }

    @Test(arguments: ["?limit=0", "?limit=101", "?limit=x", "?limit=-1"])
    func aLimitOutside1To100Is422(query: String) throws {
        #expect(try read(query).text == validationBody([("limit", "Must be an integer from 1 to 100.")]))
    }

    @Test(arguments: ["?cursor=", "?cursor=abc", "?cursor=1.act_0", "?cursor=1760000000000.key_01jb2q7m3kabcdefghjkmnpqrs"])
    func aMalformedCursorIs422(query: String) throws {
        #expect(try read(query).text == validationBody([("cursor", "Must be the next_cursor of an earlier page.")]))
    }

    @Test func theKeyOfAnotherAccountOrAnUnknownOrDeletedKeyIs404() throws {
        try makeEntries(["a"])
        let (_, other) = try api.createAccount()
        for answer in [try read(token: other), try read(key: "key_" + String(repeating: "0", count: 26)), try read(key: "nope")] {
            #expect(answer.status == 404)
            #expect(answer.text == errorBody("not_found", "Key not found."))
        }
        #expect(try api.send("DELETE", "/v1/keys/\(keyID)", [bearer(token)]).status == 204)
        #expect(try read().text == errorBody("not_found", "Key not found."))
    }

    @Test func anAPIKeyCannotReadALogAndThatRequestIsInItsOwnLog() throws {
        let answer = try read(token: secret)
        #expect(answer.status == 403)
        #expect(answer.text == errorBody("forbidden", "An API key cannot use this route."))
        let json = try read().json()
        #expect(json["items"]?.arrayValue?.first?["action"]?.stringValue == "GET /v1/keys/{key_id}/activity")
    }

    @Test func aLogKeepsTheNewest200() throws {
        for _ in 0..<203 {
            _ = try api.send("GET", "/test/things/a", [bearer(secret)])
            api.clock.advance(millis: 10)
        }
        var count = 0
        var cursor: String?
        repeat {
            let (ats, next) = try page(try read("?limit=100" + (cursor.map { "&cursor=\($0)" } ?? "")))
            count += ats.count
            cursor = next
        } while cursor != nil
        #expect(count == 200)
    }
}
