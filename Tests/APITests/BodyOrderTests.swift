@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// The order of checks for a body (`rest-api.md#activity-log`): the route, whether the body is
/// JSON (`400`, before the credential), the credential, and only then the body's value. A
/// client without a credential can make the server scan a large body, never build it.
@Suite struct BodyOrderTests {
    /// Every route that takes a body and a credential; the IDs need not exist, the gate
    /// answers first.
    static let credentialRoutes: [(String, String)] = [
        ("PATCH", "/v1/account"), ("POST", "/v1/keys"), ("PATCH", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav"),
        ("POST", "/v1/tasks"), ("PATCH", "/v1/tasks/tsk_01arz3ndektsv4rrffq69g5fav"), ("POST", "/v1/questions"),
        ("POST", "/v1/questions/qst_01arz3ndektsv4rrffq69g5fav/answer"), ("POST", "/v1/messages"),
        ("PUT", "/v1/devices/dev_01arz3ndektsv4rrffq69g5fav"),
        ("PUT", "/v1/tasks/tsk_01arz3ndektsv4rrffq69g5fav/live-activity"),
        ("DELETE", "/v1/tasks/tsk_01arz3ndektsv4rrffq69g5fav/live-activity"),
    ]

    /// `[1,1,...]` just under the 1 MiB body limit: the shape that cost 50 ms to parse.
    static let largeArray = "[" + Array(repeating: "1", count: 524_000).joined(separator: ",") + "]"

    @Test func aValidBodyWithoutAWorkingCredentialIsRefusedWithoutBeingParsed() throws {
        let api = try APIHarness()
        for (method, path) in Self.credentialRoutes {
            for credential in [[], [bearer("mca_wrong")], [apiKey("mck_wrong")]] {
                let answer = try api.send(method, path, credential, body: Self.largeArray)
                #expect(answer.status == 401, "\(method) \(path)")
                #expect(answer.text == errorBody("unauthorized", "The credential is missing or wrong."))
            }
        }
        #expect(api.handler.bodiesParsed == 0)
    }

    @Test func aBodyThatIsNotJSONIsStillRefusedBeforeTheCredential() throws {
        let api = try APIHarness()
        let cut = String(Self.largeArray.dropLast())
        for (method, path) in Self.credentialRoutes {
            for body in ["{", cut, "[1,1,01]", "{\"a\":1,}"] {
                let answer = try api.send(method, path, body: body)
                #expect(answer.status == 400, "\(method) \(path)")
                #expect(answer.text == errorBody("bad_request", "The body is not valid JSON."))
                #expect(answer.record.principal == nil)
            }
        }
        #expect(api.handler.bodiesParsed == 0)
    }

    @Test func theBodyIsParsedOnceTheCredentialIsAccepted() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        let parsedBefore = api.handler.bodiesParsed
        let array = try api.send("POST", "/v1/keys", [bearer(token)], body: Self.largeArray)
        #expect(array.status == 422)
        #expect(api.handler.bodiesParsed == parsedBefore + 1)
        let created = try api.send("POST", "/v1/keys", [bearer(token)], body: #"{"label": "Cursor"}"#)
        #expect(created.status == 201)
        #expect(api.handler.bodiesParsed == parsedBefore + 2)
        // An account token on a route for keys: the 403 comes from the gate, before the parse.
        #expect(try api.send("POST", "/v1/questions", [bearer(token)], body: Self.largeArray).status == 403)
        #expect(api.handler.bodiesParsed == parsedBefore + 2)
        // With a working credential, a body that is not JSON is still the 400.
        #expect(try api.send("POST", "/v1/keys", [bearer(token)], body: "{").status == 400)
    }

    @Test func aRouteWithoutACredentialParsesItsBody() throws {
        let api = try APIHarness()
        #expect(try api.send("POST", "/v1/accounts", body: "{").status == 400)
        #expect(api.handler.bodiesParsed == 0)
        #expect(try api.send("POST", "/v1/accounts", body: "{}").status == 201)
        #expect(api.handler.bodiesParsed == 1)
        #expect(try api.send("POST", "/v1/accounts", body: Self.largeArray).status == 422)
        #expect(api.handler.bodiesParsed == 2)
    }

    /// `mcp.md#connect`: the endpoint answers a missing key with the REST `401` before it
    /// reads the JSON-RPC message, so a body that is not JSON gets the `401`, and only a
    /// request with its key gets `-32700`.
    @Test func theMCPEndpointChecksTheKeyBeforeTheMessage() throws {
        let api = try APIHarness()
        let secret = try api.createKey(token: try api.createAccount().token).secret
        for body in ["{", Self.largeArray] {
            let refused = try api.send("POST", "/mcp", body: body)
            #expect(refused.status == 401)
            #expect(refused.text == errorBody("unauthorized", "The credential is missing or wrong."))
        }
        let parseError = try api.send("POST", "/mcp", [bearer(secret)], body: "{")
        #expect(parseError.status == 400)
        #expect(try parseError.json()["error"]?["code"]?.int64Value == -32700)
    }
}
