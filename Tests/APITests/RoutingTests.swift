import HTTP
import JSON
import Relaydeck
import Testing

/// Routing comes first: an unknown path or a wrong method is answered before the body or the
/// credential is looked at.
@Suite struct RoutingTests {
    // `/` is the home page (SiteTests); `/docs/` has no page name.
    @Test(arguments: ["/docs/", "/v1", "/v1/", "/v1/keys/", "/health/", "/v1/keys/key_x/extra", "/v1/accounts/acc_x",
                      "/v1/tasks/", "/V1/keys", "/v1//keys", "/v1/keys%2Fkey_x"])
    func anUnknownPathIsNotFound(path: String) throws {
        let api = try APIHarness()
        let answer = try api.send("GET", path)
        #expect(answer.status == 404)
        #expect(answer.text == errorBody("not_found", "Not found."))
        #expect(answer.headers == ["Content-Type: application/json"])
        #expect(answer.pattern == "(none)")
    }

    @Test func anUnknownPathIsNotFoundBeforeTheCredentialAndBody() throws {
        let api = try APIHarness()
        let answer = try api.send("POST", "/v1/nothing", [bearer("mca_wrong")], body: "{not json")
        #expect(answer.status == 404)
        #expect(answer.text == errorBody("not_found", "Not found."))
    }

    @Test(arguments: [
        ("PUT", "/health", "GET, HEAD"),
        ("POST", "/health", "GET, HEAD"),
        ("GET", "/v1/accounts", "POST"),
        ("HEAD", "/v1/accounts", "POST"),
        ("DELETE", "/v1/accounts", "POST"),
        ("POST", "/v1/account", "GET, HEAD, PATCH, DELETE"),
        ("PUT", "/v1/keys", "GET, HEAD, POST"),
        ("DELETE", "/v1/keys", "GET, HEAD, POST"),
        ("GET", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav", "PATCH, DELETE"),
        ("OPTIONS", "/v1/keys", "GET, HEAD, POST"),
        ("get", "/v1/keys", "GET, HEAD, POST"),
    ])
    func aWrongMethodIsNotAllowedWithTheAllowedOnes(method: String, path: String, allow: String) throws {
        let api = try APIHarness()
        let answer = try api.send(method, path, [bearer("mca_wrong")], body: "{not json")
        #expect(answer.status == 405)
        #expect(answer.text == errorBody("method_not_allowed", "Method not allowed."))
        #expect(answer.headers == ["Content-Type: application/json", "Allow: \(allow)"])
    }

    @Test(arguments: [
        ("/health", "/health"),
        ("/health?verbose=1", "/health"),
        ("/v1/accounts", "/v1/accounts"),
        ("/v1/account", "/v1/account"),
        ("/v1/keys", "/v1/keys"),
        ("/v1/keys/key_01arz3ndektsv4rrffq69g5fav", "/v1/keys/{key_id}"),
        ("/v1/keys/anything", "/v1/keys/{key_id}"),
    ])
    func theMatchedPatternIsReportedNeverTheID(path: String, pattern: String) throws {
        let api = try APIHarness()
        #expect(try api.send("DELETE", path).pattern == pattern)
        #expect(try api.send("PUT", path).pattern == pattern)
    }

    @Test func headIsAnsweredLikeGet() throws {
        let api = try APIHarness()
        let (_, token) = try api.createAccount()
        for path in ["/health", "/v1/account", "/v1/keys"] {
            let get = try api.send("GET", path, [bearer(token)])
            let head = try api.send("HEAD", path, [bearer(token)])
            #expect(get.status == 200)
            #expect(head.status == get.status)
            #expect(head.headers == get.headers)
            // The connection drops the body of a HEAD answer; Content-Length stays that of GET.
            #expect(head.text == get.text)
            #expect(head.pattern == path)
        }
        #expect(try api.send("HEAD", "/v1/account").status == 401)
    }

    @Test func aBodyThatIsNotJSONIsABadRequestBeforeTheCredential() throws {
        let api = try APIHarness()
        for (method, path) in [("POST", "/v1/accounts"), ("POST", "/v1/keys"), ("PATCH", "/v1/account"),
                               ("PATCH", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav")] {
            for body in ["{", "not json", "{\"label\": }", "\u{FEFF}{}", "{} {}"] {
                let answer = try api.send(method, path, body: body)
                #expect(answer.status == 400, "\(method) \(path) \(body)")
                #expect(answer.text == errorBody("bad_request", "The body is not valid JSON."))
            }
        }
    }

    /// Routes without a body ignore what is sent: the credential decides.
    @Test func aBodyIsIgnoredWhereTheRouteTakesNone() throws {
        let api = try APIHarness()
        #expect(try api.send("GET", "/v1/account", body: "{").status == 401)
        #expect(try api.send("GET", "/health", body: "{").status == 200)
        let (_, token) = try api.createAccount()
        #expect(try api.send("DELETE", "/v1/account", [bearer(token)], body: "not json").status == 204)
    }
}
