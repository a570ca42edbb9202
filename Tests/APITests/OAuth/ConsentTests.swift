@testable import API
import Clock
import HTTP
import JSON
import Relaydeck
import Testing

/// The consent the console asks of the person (`/web/oauth/authorization`, issue 24): what a
/// request asks, and the answer: a code for the key and scopes chosen, or `access_denied`.
/// Only a signed-in person answers, from the console's own origin; the grants show on the key
/// and one can be removed.
@Suite struct ConsentTests {
    let oauth: OAuthHarness
    let cookie: (String, String)
    static let origin = ("Origin", OAuthHarness.origin)
    var query: String {
        "client_id=\(oauth.client.id)&redirect_uri=https%3A%2F%2Fconnector.example%2Fcallback&response_type=code"
            + "&code_challenge=\(OAuthHarness.challenge)&code_challenge_method=S256&resource=https%3A%2F%2Frelay.example%2Fmcp"
            + "&state=s%201&scope=tasks%3Aread+tasks%3Awrite+inbox"
    }

    init() async throws {
        oauth = try await OAuthHarness()
        let signedIn = try oauth.api.send("POST", "/web/session", [Self.origin], body: #"{"account_token": "\#(oauth.token)"}"#)
        let setCookie = try #require(signedIn.header("Set-Cookie"))
        cookie = ("Cookie", String(setCookie.prefix { $0 != ";" }))
    }

    func decide(_ body: String, _ headers: [(String, String)]? = nil) throws -> Answer {
        try oauth.api.send("POST", "/web/oauth/authorization", headers ?? [cookie, Self.origin], body: body)
    }

    @Test func theConsolesPageLearnsWhoAsksWhatAndWhereItSendsThePersonBack() throws {
        let answer = try oauth.api.send("GET", "/web/oauth/authorization?" + query, [cookie])
        #expect(answer.status == 200)
        #expect(answer.text == #"{"client":{"id":"\#(oauth.client.id)","name":"Claude","redirect_uri":"https://connector.example/callback","#
            + #""redirect_host":"connector.example"},"scopes":["tasks:read","tasks:write","inbox"]}"#)
        #expect(answer.header("Cache-Control") == "no-store")
    }

    @Test func allowingGivesTheClientACodeForTheKeyAndScopesChosen() throws {
        let answer = try decide(#"{"request":"\#(query)","decision":"allow","key_id":"\#(oauth.key.id)","scopes":["tasks:read","inbox"]}"#)
        #expect(answer.status == 200)
        let redirect = try #require(try answer.json()["redirect"]?.stringValue)
        let prefix = "https://connector.example/callback?code="
        #expect(redirect.hasPrefix(prefix) && redirect.hasSuffix("&state=s%201&iss=https%3A%2F%2Frelay.example"))
        let code = String(redirect.dropFirst(prefix.count).prefix { $0 != "&" })
        #expect(code.hasPrefix("mcc_"))
        let tokens = try oauth.post("/oauth/token", "grant_type=authorization_code&code=\(code)&redirect_uri=\(OAuthHarness.redirect)"
            + "&code_verifier=\(OAuthHarness.verifier)&client_id=\(oauth.client.id)")
        #expect(tokens.status == 200)
        #expect(try tokens.json()["scope"]?.stringValue == "tasks:read inbox")
        let grants = try oauth.api.send("GET", "/v1/keys/\(oauth.key.id)/grants", [bearer(oauth.token)])
        let grant = try #require(try grants.json()["grants"]?.arrayValue?.first)
        #expect(grant["client_name"]?.stringValue == "Claude" && grant["client_id"]?.stringValue == oauth.client.id)
        #expect(grant["scopes"]?.arrayValue?.compactMap(\.stringValue) == ["tasks:read", "inbox"])
        #expect(grant["last_used_at"]?.isNull == true)
        #expect(grant["created_at"]?.int64Value == oauth.api.clock.wallMillis / 1000)
    }

    @Test func denyingSendsThePersonBackWithAccessDenied() async throws {
        let answer = try decide(#"{"request":"\#(query)","decision":"deny"}"#)
        #expect(answer.status == 200)
        #expect(answer.text == #"{"redirect":"https://connector.example/callback?error=access_denied&error_description=The%20person%20declined.&state=s%201&iss=https%3A%2F%2Frelay.example"}"#)
        #expect(try await oauth.api.services.oauthGrants.list(accountID: oauth.accountID).isEmpty)
    }

    @Test func scopesBeyondTheRequestOrNoKeyAreRefused() throws {
        let wider = try decide(#"{"request":"\#(query)","decision":"allow","key_id":"\#(oauth.key.id)","scopes":["notify"]}"#)
        #expect(wider.status == 422 && wider.text == validationBody([("scopes", "Must be among the scopes the client asks for.")]))
        let noKey = try decide(#"{"request":"\#(query)","decision":"allow","scopes":["inbox"]}"#)
        #expect(noKey.text == validationBody([("key_id", "Choose the key the client will act as.")]))
        let (_, strangerToken) = try oauth.api.createAccount()
        let strangerKey = try oauth.api.createKey(token: strangerToken)
        let foreign = try decide(#"{"request":"\#(query)","decision":"allow","key_id":"\#(strangerKey.id)","scopes":["inbox"]}"#)
        #expect(foreign.status == 404 && foreign.text == errorBody("not_found", "Key not found."))
    }

    @Test func onlyASignedInPersonFromTheConsolesOriginAnswers() throws {
        let body = #"{"request":"\#(query)","decision":"allow","key_id":"\#(oauth.key.id)","scopes":["inbox"]}"#
        #expect(try decide(body, [bearer(oauth.token)]).status == 401)
        #expect(try decide(body, [cookie]).status == 403)
        #expect(try decide(body, [cookie, ("Origin", "https://evil.example")]).status == 403)
        #expect(try oauth.api.send("GET", "/web/oauth/authorization?" + query, [bearer(oauth.token)]).status == 401)
    }

    @Test func aRequestThatNoLongerChecksOutIsRefusedWithItsReason() throws {
        let changed = query.replacingOccurrences("connector.example%2Fcallback", "evil.example%2F")
        let answer = try oauth.api.send("GET", "/web/oauth/authorization?" + changed, [cookie])
        #expect(answer.status == 400 && answer.text == errorBody("bad_request", "The redirect URI is not one the client registered."))
        let decided = try decide(#"{"request":"\#(changed)","decision":"deny"}"#)
        #expect(decided.status == 400 && decided.header("Location") == nil)
    }

    @Test func removingAGrantStopsItsTokens() async throws {
        let access = try #require(try await oauth.tokens()["access_token"]?.stringValue)
        let grantID = try #require(try await oauth.api.services.oauthGrants.list(accountID: oauth.accountID).first?.id)
        #expect(try oauth.api.send("DELETE", "/v1/keys/\(oauth.key.id)/grants/grt_none", [bearer(oauth.token)]).status == 404)
        #expect(try oauth.api.send("DELETE", "/v1/keys/\(oauth.key.id)/grants/\(grantID)", [bearer(access)]).status == 403)
        #expect(try oauth.api.send("DELETE", "/v1/keys/\(oauth.key.id)/grants/\(grantID)", [bearer(oauth.token)]).status == 204)
        #expect(try oauth.api.send("GET", "/v1/tasks", [bearer(access)]).status == 401)
        #expect(try oauth.api.send("GET", "/v1/keys/\(oauth.key.id)/grants", [bearer(oauth.token)]).text == #"{"grants":[]}"#)
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var copy = self
        if let range = copy.firstRange(of: target) { copy.replaceSubrange(range, with: replacement) }
        return copy
    }
}
