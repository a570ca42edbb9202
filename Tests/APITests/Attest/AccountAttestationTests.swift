@testable import API
import AppIntegrity
import Clock
import Crypto
import Foundation
import HTTP
import JSON
import Relaydeck
import Testing

/// `app-integrity.md#create-the-account` with App Attest on, with a real attestation from
/// Tests/Fixtures/app-attest: the server's clock stands at the file's verification time, and
/// the challenge the attestation was made for is given out as if by `POST /v1/attest/challenge`.
@Suite struct AccountAttestationTests {
    /// A development attestation whose client data hash is SHA-256 of a UUID text.
    struct Recorded {
        let appID: String
        let keyID: String
        let challenge: String
        let object: String
        let verifyAt: Int64
    }

    static let recorded: Recorded = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/app-attest/attestation/uebelack-development-attestation.json")
        let object = (try? JSONSerialization.jsonObject(with: Data(contentsOf: url))) as? [String: Any] ?? [:]
        let challenge = Base64.decode(object["challenge_b64"] as? String ?? "") ?? []
        return Recorded(appID: object["app_id"] as? String ?? "", keyID: object["key_id_b64"] as? String ?? "",
                        challenge: String(decoding: challenge, as: UTF8.self), object: object["attestation_b64"] as? String ?? "",
                        verifyAt: (object["verify_at_unix"] as? NSNumber)?.int64Value ?? 0)
    }()

    static let invalid = errorBody("attestation_invalid", "The attestation is not valid.")

    private func harness(environment: AppAttestEnvironment = .development, appIDs: [String] = [recorded.appID]) throws -> APIHarness {
        var configuration = APIConfiguration()
        configuration.appAttest = AppAttestSettings(appIDs: appIDs, environment: environment)
        let api = try APIHarness(configuration: configuration)
        api.clock.wallMillis = Self.recorded.verifyAt * 1000
        return api
    }

    /// Gives out the recorded challenge, as the challenge route would have.
    private func giveChallenge(_ api: APIHarness) {
        api.handler.context.attestBook.add(Self.recorded.challenge, nowMillis: api.clock.wallMillis)
    }

    private func body(keyID: String = recorded.keyID, challenge: String = recorded.challenge, object: String = recorded.object) -> String {
        #"{"attestation": {"key_id": "\#(keyID)", "challenge": "\#(challenge)", "object": "\#(object)"}}"#
    }

    @Test func aValidAttestationMakesAnAccountThatKeepsTheKey() async throws {
        let api = try harness()
        giveChallenge(api)
        let answer = try api.send("POST", "/v1/accounts", body: body())
        #expect(answer.status == 201)
        let id = try #require(try answer.json()["account"]?["id"]?.stringValue)
        #expect(try answer.json()["token"]?.stringValue?.hasPrefix("mca_") == true)
        let key = try await #require(try api.services.accounts.attestedKey(of: id))
        #expect(key.keyID == Base64.decode(Self.recorded.keyID))
        #expect(SHA256.hash(key.publicKey) == key.keyID)
        #expect(key.counter == 0)
    }

    @Test func withoutAnAttestationTheCheckAsksForOne() throws {
        let api = try harness()
        let answer = try api.send("POST", "/v1/accounts", body: "{}")
        #expect(answer.status == 401)
        #expect(answer.text == errorBody("attestation_required", "This server needs an App Attest attestation."))
        #expect(try api.send("POST", "/v1/accounts").status == 401)
    }

    @Test func anUnknownUsedOrExpiredChallengeIsInvalid() throws {
        let api = try harness()
        // Never given out.
        #expect(try api.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
        // Used by a success.
        giveChallenge(api)
        #expect(try api.send("POST", "/v1/accounts", body: body()).status == 201)
        #expect(try api.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
        // Expired: 300 seconds after it was given out (the attestation's certificates are
        // still valid then).
        api.clock.wallMillis -= 300_000
        giveChallenge(api)
        api.clock.wallMillis += 300_000
        let expired = try api.send("POST", "/v1/accounts", body: body())
        #expect(expired.status == 401)
        #expect(expired.text == Self.invalid)
    }

    @Test func aFailedAttemptUsesTheChallenge() throws {
        let api = try harness()
        giveChallenge(api)
        let otherKey = Base64.encode([UInt8](repeating: 7, count: 32))
        #expect(try api.send("POST", "/v1/accounts", body: body(keyID: otherKey)).text == Self.invalid)
        #expect(try api.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
        #expect(api.handler.context.attestBook.count == 0)
    }

    @Test func eachFailedCheckIsInvalid() throws {
        // The wrong environment, an app ID not configured, a time outside the certificates.
        for api in [try harness(environment: .production), try harness(appIDs: ["ABCDE12345.com.example.other"])] {
            giveChallenge(api)
            #expect(try api.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
        }
        let late = try harness()
        late.clock.wallMillis = 2_000_000_000_000
        giveChallenge(late)
        #expect(try late.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
        // A challenge that is not the one the attestation was made for.
        let api = try harness()
        api.handler.context.attestBook.add("another challenge", nowMillis: api.clock.wallMillis)
        #expect(try api.send("POST", "/v1/accounts", body: body(challenge: "another challenge")).text == Self.invalid)
        // An object that is base64 but not an attestation.
        giveChallenge(api)
        #expect(try api.send("POST", "/v1/accounts", body: body(object: "AAAA")).text == Self.invalid)
    }

    @Test func oneKeyMakesOneAccountAndAnotherAfterItsDeletion() throws {
        let api = try harness()
        giveChallenge(api)
        let first = try api.send("POST", "/v1/accounts", body: body())
        #expect(first.status == 201)
        let token = try #require(try first.json()["token"]?.stringValue)
        giveChallenge(api)
        let again = try api.send("POST", "/v1/accounts", body: body())
        #expect(again.status == 401)
        #expect(again.text == Self.invalid)
        #expect(try api.send("DELETE", "/v1/account", [bearer(token)]).status == 204)
        giveChallenge(api)
        #expect(try api.send("POST", "/v1/accounts", body: body()).status == 201)
    }

    @Test func theShapeOfTheAttestationIsA422() throws {
        let api = try harness()
        let notBase64 = try api.send("POST", "/v1/accounts", body: body(keyID: "not base64!", object: "%%%"))
        #expect(notBase64.status == 422)
        #expect(notBase64.text == validationBody([("attestation.key_id", "Must be base64 text."),
                                                  ("attestation.object", "Must be base64 text.")]))
        let short = try api.send("POST", "/v1/accounts", body: body(keyID: Base64.encode([1, 2, 3])))
        #expect(short.text == validationBody([("attestation.key_id", "Must be 32 bytes.")]))
        let missing = try api.send("POST", "/v1/accounts", body: #"{"attestation": {"key_id": 1}}"#)
        #expect(missing.text == validationBody([("attestation.challenge", "Required."), ("attestation.key_id", "Must be a string."),
                                                ("attestation.object", "Required.")]))
        let notObject = try api.send("POST", "/v1/accounts", body: #"{"attestation": "x"}"#)
        #expect(notObject.text == validationBody([("attestation", "Must be an object.")]))
        // An attempt refused for its shape uses the challenge it names too.
        giveChallenge(api)
        #expect(try api.send("POST", "/v1/accounts", body: body(keyID: "AQID")).status == 422)
        #expect(try api.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
        // The 422s did not count toward the address's allowance of accounts.
        giveChallenge(api)
        #expect(try api.send("POST", "/v1/accounts", body: body()).status == 201)
    }

    @Test func anAttemptOverTheAddressLimitUsesTheChallenge() throws {
        var configuration = APIConfiguration()
        configuration.appAttest = AppAttestSettings(appIDs: [Self.recorded.appID], environment: .development)
        configuration.accountsPerHour = 1
        let api = try APIHarness(configuration: configuration)
        api.clock.wallMillis = Self.recorded.verifyAt * 1000
        #expect(try api.send("POST", "/v1/accounts", body: "{}").status == 401)
        giveChallenge(api)
        #expect(try api.send("POST", "/v1/accounts", body: body()).status == 429)
        api.advanceLoop(seconds: 3600)
        #expect(try api.send("POST", "/v1/accounts", body: body()).text == Self.invalid)
    }

    @Test func withTheCheckOffTheAttestationIsIgnored() throws {
        let api = try APIHarness()
        #expect(try api.send("POST", "/v1/accounts", body: #"{"attestation": "anything"}"#).status == 201)
    }
}
