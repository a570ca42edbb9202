@testable import API
import Clock
import HTTP
import JSON
import Relaydeck
import TestSupport
import Testing

/// `/health`, and every store-backed route while the store is unreachable.
@Suite struct HealthTests {
    @Test func aWorkingStoreIsHealthy() throws {
        let api = try APIHarness()
        let answer = try api.send("GET", "/health")
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-cache"])
        #expect(answer.text == #"{"status":"ok","store":"ok"}"#)
        #expect(answer.pattern == "/health")
    }

    /// No credential is read: even a wrong one does not matter.
    @Test func healthNeedsNoCredential() throws {
        let api = try APIHarness()
        #expect(try api.send("GET", "/health", [bearer("mca_wrong")]).status == 200)
    }

    @Test func anUnreachableStoreIsUnavailableEverywhere() throws {
        let directory = TemporaryDirectory()
        let api = try APIHarness(storePath: directory.file("missing/relaydeck.db"))
        let health = try api.send("GET", "/health")
        #expect(health.status == 503)
        #expect(health.headers == ["Content-Type: application/json", "Cache-Control: no-cache", "Retry-After: 1"])
        #expect(health.text == #"{"status":"unavailable","store":"unavailable"}"#)
        let head = try api.send("HEAD", "/health")
        #expect(head.status == 503)
        #expect(head.headers == health.headers)

        let unavailable = errorBody("unavailable", "The store is unavailable. Try again in 1 seconds.")
        let token = "mca_" + String(repeating: "A", count: 43)
        for (method, path, headers, body) in [
            ("POST", "/v1/accounts", [], "{}"),
            ("GET", "/v1/account", [bearer(token)], nil),
            ("GET", "/v1/keys", [apiKey("mck_" + String(repeating: "A", count: 43))], nil),
            ("DELETE", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav", [bearer(token)], nil),
        ] as [(String, String, [(String, String)], String?)] {
            let answer = try api.send(method, path, headers, body: body)
            #expect(answer.status == 503, "\(method) \(path)")
            #expect(answer.headers == ["Content-Type: application/json", "Retry-After: 1"])
            #expect(answer.text == unavailable)
        }
        // What is refused before the store is asked is refused as usual.
        #expect(try api.send("GET", "/v1/account").status == 401)
        #expect(try api.send("GET", "/v1/nothing").status == 404)
        #expect(try api.send("POST", "/v1/accounts", body: "{").status == 400)
        #expect(try api.send("POST", "/v1/accounts", body: #"{"x":1}"#).status == 422)
    }

    @Test func theStoreComesBackWithoutARestart() throws {
        let directory = TemporaryDirectory()
        let monotonic = ManualClock()
        let store = Store(path: directory.file("later/relaydeck.db"), clock: monotonic)
        let api = try APIHarness(store: store)
        #expect(try api.send("GET", "/health").status == 503)
        #expect(try api.send("POST", "/v1/accounts").status == 503)
        directory.makeDirectory("later")
        monotonic.advance(millis: 1_000)
        #expect(try api.send("GET", "/health").text == #"{"status":"ok","store":"ok"}"#)
        let (_, token) = try api.createAccount()
        #expect(try api.send("GET", "/v1/account", [bearer(token)]).status == 200)
    }
}
