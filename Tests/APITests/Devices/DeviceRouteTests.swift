@testable import API
import Clock
import JSON
import Relaydeck
import Testing

/// `PUT`/`DELETE /v1/devices/{device_id}` (`rest-api.md#devices`).
@Suite struct DeviceRouteTests {
    static let phone = "dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b"
    static let token = String(repeating: "a1b2", count: 16)
    static let body = #"{"platform":"ios","model":"iPhone18,1","os_version":"27.0","app_version":"1.0 (1)","apns_environment":"production""#

    let api: APIHarness
    let token: String

    init() throws {
        api = try APIHarness()
        token = try api.createAccount().token
    }

    func put(_ body: String, id: String = phone, token: String? = nil) throws -> Answer {
        try api.send("PUT", "/v1/devices/\(id)", [bearer(token ?? self.token)], body: body)
    }

    @Test func putMakesTheDeviceAndRepeatsItsFieldsWithIDAndUpdatedAt() throws {
        let answer = try put(Self.body + #","apns_token":"\#(Self.token.uppercased())","widget_push_token":null}"#)
        #expect(answer.status == 200)
        #expect(answer.headers == ["Content-Type: application/json", "Cache-Control: no-store"])
        #expect(answer.text == deviceJSON(apnsToken: #""\#(Self.token)""#))
        #expect(answer.pattern == "/v1/devices/{device_id}")
    }

    @Test func putReplacesTheDeviceAndATokenLeftOutBecomesNull() throws {
        _ = try put(Self.body + #","apns_token":"\#(Self.token)","push_to_start_token":"\#(Self.token)"}"#)
        api.clock.advance(millis: 2500)
        let answer = try put(#"{"platform":"watchos","model":"Watch7,1","os_version":"12.0","app_version":"1.1 (2)","apns_environment":"sandbox"}"#)
        #expect(answer.status == 200)
        #expect(answer.text == #"{"id":"\#(Self.phone)","platform":"watchos","model":"Watch7,1","os_version":"12.0","app_version":"1.1 (2)","#
            + #""apns_environment":"sandbox","apns_token":null,"push_to_start_token":null,"widget_push_token":null,"updated_at":1760000002.5}"#)
    }

    @Test func everyProblemOfTheBodyAndTheIDIsOne422() throws {
        let answer = try put(#"{"platform":"android","model":"","os_version":"\#(String(repeating: "9", count: 65))","apns_environment":1,"apns_token":"xyz","push_to_start_token":"abc","widget_push_token":12,"name":"x"}"#,
                             id: "dev_3F2B8C1E-5A4D-4E6F-9B7A-1C2D3E4F5A6B")
        #expect(answer.status == 422)
        let hex = "Must be hexadecimal text of 16 to 512 digits, whole bytes."
        #expect(answer.text == validationBody([
            ("apns_environment", "Must be one of: production, sandbox."), ("apns_token", hex),
            ("app_version", "Required."), ("device_id", "Must be dev_ plus a lowercase UUID."),
            ("model", "Must be 1 to 64 characters."), ("name", "Unknown field."),
            ("os_version", "Must be 1 to 64 characters."), ("platform", "Must be one of: ios, ipados, watchos."),
            ("push_to_start_token", hex), ("widget_push_token", hex),
        ]))
    }

    @Test func aMalformedIDWithAGoodBodyIs422OnTheID() throws {
        for id in ["dev_1", "3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", "dev_3f2b8c1e5a4d4e6f9b7a1c2d3e4f5a6b"] {
            let answer = try put(Self.body + "}", id: id)
            #expect(answer.text == validationBody([("device_id", "Must be dev_ plus a lowercase UUID.")]))
        }
    }

    @Test func theTwentyFirstNewDeviceIsAConflictAndReplacingOneIsNot() throws {
        for index in 1...20 {
            #expect(try put(Self.body + "}", id: "dev_00000000-0000-4000-8000-0000000000\(index < 10 ? "0" : "")\(index)").status == 200)
        }
        let refused = try put(Self.body + "}")
        #expect(refused.status == 409)
        #expect(refused.text == errorBody("conflict", "An account can have 20 devices."))
        #expect(try put(Self.body + "}", id: "dev_00000000-0000-4000-8000-000000000007").status == 200)
    }

    @Test func anOlderRegistrationOfTheSameAPNsTokenLosesItsTokens() async throws {
        let tablet = "dev_00000000-0000-4000-8000-000000000001"
        _ = try put(Self.body + #","apns_token":"\#(Self.token)","widget_push_token":"\#(Self.token)"}"#)
        #expect(try put(Self.body + #","apns_token":"\#(Self.token)"}"#, id: tablet).status == 200)
        let accountID = try #require(try api.send("GET", "/v1/account", [bearer(token)]).json()["id"]?.stringValue)
        let older = try await api.services.devices.get(accountID: accountID, deviceID: Self.phone)
        #expect(older.apnsToken == nil && older.widgetPushToken == nil)
    }

    @Test func deleteIs204ThenAnUnknownDeviceIs404() throws {
        _ = try put(Self.body + "}")
        let deleted = try api.send("DELETE", "/v1/devices/\(Self.phone)", [bearer(token)])
        #expect(deleted.status == 204)
        #expect(deleted.text == "")
        for id in [Self.phone, "dev_1"] {
            let again = try api.send("DELETE", "/v1/devices/\(id)", [bearer(token)])
            #expect(again.status == 404)
            #expect(again.text == errorBody("not_found", "Device not found."))
        }
    }

    @Test func anotherAccountNeitherSeesNorDeletesTheDevice() throws {
        _ = try put(Self.body + #","apns_token":"\#(Self.token)"}"#)
        let (_, other) = try api.createAccount()
        #expect(try api.send("DELETE", "/v1/devices/\(Self.phone)", [bearer(other)]).status == 404)
        // Its own device of the same ID is its own; the first stays.
        #expect(try put(Self.body + "}", token: other).text == deviceJSON(apnsToken: "null"))
        #expect(try api.send("DELETE", "/v1/devices/\(Self.phone)", [bearer(token)]).status == 204)
    }

    @Test func anAPIKeyIsForbiddenAndADeletedAccountIsUnauthorized() throws {
        let (_, secret) = try api.createKey(token: token)
        let forbidden = try put(Self.body + "}", token: secret)
        #expect(forbidden.status == 403)
        #expect(forbidden.text == errorBody("forbidden", "An API key cannot use this route."))
        #expect(try api.send("DELETE", "/v1/account", [bearer(token)]).status == 204)
        #expect(try put(Self.body + "}").status == 401)
    }
}

/// The exact Device object of `DeviceRouteTests.body`; `apnsToken` is JSON text.
func deviceJSON(id: String = DeviceRouteTests.phone, apnsToken: String, updatedAt: String = "1760000000.0") -> String {
    #"{"id":"\#(id)","platform":"ios","model":"iPhone18,1","os_version":"27.0","app_version":"1.0 (1)","#
        + #""apns_environment":"production","apns_token":\#(apnsToken),"push_to_start_token":null,"widget_push_token":null,"#
        + #""updated_at":\#(updatedAt)}"#
}
