@testable import API
import Clock
import Crypto
import EventLoop
import HTTP
import JSON
import Relaydeck
import Testing
import WebAssets
import WebAuthnTestSupport

/// The web console's routes through the handler: the files under `/app/`, sign-in with the
/// account token, the session cookie as an account credential and the `Origin` rule, and a
/// passkey registered and used with a software authenticator (challenges once, 5 minutes).
@Suite struct WebRouteTests {
    /// The harness sends `Host: relaydeck.localhost`.
    static let origin = "http://relaydeck.localhost"
    static let forbidden = errorBody("forbidden", "The Origin header is not the origin of this server.")
    static let unauthorized = errorBody("unauthorized", "The credential is missing or wrong.")

    func cookie(_ secret: String) -> (String, String) { ("Cookie", "theme=dark; relaydeck_session=\(secret)") }
    let sameOrigin = ("Origin", WebRouteTests.origin)

    /// An account and a session of it, signed in with the account token.
    func signedIn(_ harness: APIHarness) throws -> (account: String, token: String, secret: String) {
        let (account, token) = try harness.createAccount()
        let answer = try harness.send("POST", "/web/session", [("User-Agent", "Test/1.0")], body: #"{"account_token": "\#(token)"}"#)
        #expect(answer.status == 201)
        let setCookie = try #require(answer.header("Set-Cookie"))
        let secret = String(setCookie.dropFirst("relaydeck_session=".count).prefix(47))
        #expect(setCookie == "relaydeck_session=\(secret); Path=/; HttpOnly; SameSite=Strict")
        let json = try answer.json()
        #expect(json["account_id"]?.stringValue == account)
        #expect(json["session"]?["current"]?.boolValue == true)
        #expect(json["session"]?["user_agent"]?.stringValue == "Test/1.0")
        return (account, token, secret)
    }

    // MARK: Files

    @Test func theConsolePageHasTheSecurityHeadersAndNoRecord() throws {
        let harness = try APIHarness()
        let page = try harness.send("GET", "/app/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy") == """
            default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
            manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'
            """)
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        #expect(page.header("Referrer-Policy") == "no-referrer")
        #expect(page.header("X-Frame-Options") == "DENY")
        #expect(page.response.body == WebAsset.all["index.html"]?.bytes)
        #expect(page.record.route == nil && page.record.principal == nil)
        let etag = try #require(page.header("ETag"))
        #expect(try harness.send("GET", "/app/index.html", [("If-None-Match", "W/\"x\", \(etag)")]).status == 304)
        let moved = try harness.send("GET", "/app")
        #expect(moved.status == 308 && moved.header("Location") == "/app/")
        let missing = try harness.send("GET", "/app/missing.css")
        #expect(missing.status == 404 && missing.text == errorBody("not_found", "Not found."))
        #expect(missing.header("X-Frame-Options") == "DENY")
        // Only `/app` and below: `/apps` is an ordinary unknown route.
        let other = try harness.send("GET", "/apps")
        #expect(other.status == 404 && other.header("X-Frame-Options") == nil)
    }

    // MARK: Sessions

    @Test func theSessionIsAnAccountCredentialWithoutTheAppCode() async throws {
        var configuration = APIConfiguration()
        configuration.appCodeSecret = Array("12345678901234567890".utf8)
        let harness = try APIHarness(configuration: configuration)
        // With the app code on, account creation needs it: make the account in the domain.
        let (account, token) = try await harness.services.accounts.create()
        let answer = try harness.send("POST", "/web/session", body: #"{"account_token": "\#(token.text)"}"#)
        #expect(answer.status == 201)
        let secret = String(try #require(answer.header("Set-Cookie")).dropFirst("relaydeck_session=".count).prefix(47))
        let got = try harness.send("GET", "/v1/account", [cookie(secret)])
        #expect(got.status == 200)
        #expect(got.record.principal == .account(accountID: account.id))
        #expect(try harness.send("GET", "/v1/account", [bearer(token.text)]).status == 401)
    }

    @Test func aChangeWithTheCookieNeedsTheServersOrigin() throws {
        let harness = try APIHarness()
        let (_, _, secret) = try signedIn(harness)
        for origin in [nil, "https://evil.example", "null", "http://relaydeck.localhost.evil.example"] {
            let headers = [cookie(secret)] + (origin.map { [("Origin", $0)] } ?? [])
            let refused = try harness.send("POST", "/v1/keys", headers, body: #"{"label": "x"}"#)
            #expect(refused.status == 403 && refused.text == Self.forbidden, "\(String(describing: origin))")
        }
        #expect(try harness.send("GET", "/v1/keys", [cookie(secret)]).text == #"{"keys":[]}"#)
        #expect(try harness.send("POST", "/v1/keys", [cookie(secret), sameOrigin], body: #"{"label": "x"}"#).status == 201)
        // Only the scheme this server speaks (plain HTTP here) is its own.
        #expect(try harness.send("POST", "/v1/keys", [cookie(secret), ("Origin", "https://relaydeck.localhost")], body: #"{"label": "y"}"#).status == 403)
        // A rebound name: the cookie is refused on any method.
        #expect(try harness.send("GET", "/v1/keys", [cookie(secret), ("Host", "evil.example")]).status == 403)
    }

    @Test func withAnHTTPSPublicURLTheCookieIsHostPrefixedAndTheOriginIsThatURL() throws {
        var configuration = APIConfiguration()
        configuration.publicOrigin = "https://console.example.com"
        let harness = try APIHarness(configuration: configuration)
        let (_, token) = try harness.createAccount()
        let answer = try harness.send("POST", "/web/session", body: #"{"account_token": "\#(token)"}"#)
        let setCookie = try #require(answer.header("Set-Cookie"))
        #expect(setCookie.hasPrefix("__Host-relaydeck_session=mcs_") && setCookie.hasSuffix("; Path=/; HttpOnly; Secure; SameSite=Strict"))
        let secret = String(setCookie.dropFirst("__Host-relaydeck_session=".count).prefix(47))
        let hostCookie = ("Cookie", "__Host-relaydeck_session=\(secret)")
        #expect(try harness.send("GET", "/v1/account", [hostCookie]).status == 200)
        #expect(try harness.send("GET", "/v1/account", [cookie(secret)]).status == 401)
        #expect(try harness.send("POST", "/v1/keys", [hostCookie, sameOrigin], body: #"{"label": "x"}"#).status == 403)
        #expect(try harness.send("POST", "/v1/keys", [hostCookie, ("Origin", "https://console.example.com")], body: #"{"label": "x"}"#).status == 201)
    }

    @Test func aHeaderCredentialWinsOverTheCookie() throws {
        let harness = try APIHarness()
        let (_, token, secret) = try signedIn(harness)
        #expect(try harness.send("DELETE", "/web/session", [cookie(secret), sameOrigin]).status == 204)
        // The ended session's cookie is ignored beside a working token, and refused alone.
        #expect(try harness.send("GET", "/v1/account", [cookie(secret), bearer(token)]).status == 200)
        let alone = try harness.send("GET", "/v1/account", [cookie(secret)])
        #expect(alone.status == 401 && alone.text == Self.unauthorized)
    }

    @Test func aLoginLinkMadeElsewhereWorksOnce() async throws {
        let harness = try APIHarness()
        let (account, _) = try harness.createAccount()
        // As the operator's command does, in the same store.
        let token = try await WebSignIn(store: harness.store, clock: harness.clock, random: SystemRandom()).createLoginToken(accountID: account)
        #expect(try harness.send("POST", "/web/session", body: #"{"login_token": "\#(token)"}"#).status == 201)
        let again = try harness.send("POST", "/web/session", body: #"{"login_token": "\#(token)"}"#)
        #expect(again.status == 401 && again.text == Self.unauthorized)
        let neither = try harness.send("POST", "/web/session", body: "{}")
        #expect(neither.text == validationBody([("login_token", "Send login_token or account_token, one of them.")]))
    }

    // MARK: Passkeys

    /// `publicKey.challenge` of an options answer, decoded.
    func challenge(_ answer: Answer) throws -> [UInt8] {
        let text = try #require(try answer.json()["publicKey"]?["challenge"]?.stringValue)
        return try #require(Base64.decode(text))
    }

    func registrationBody(_ authenticator: SoftwareAuthenticator, challenge: [UInt8], origin: String = origin) -> String {
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge, origin: origin)
        let object = authenticator.attestationObject(rpID: "relaydeck.localhost")
        let id = Base64.encode(authenticator.credentialID, urlSafe: true, padded: false)
        return """
            {"name": "My laptop", "credential": {"id": "\(id)", "rawId": "\(id)", "type": "public-key", "clientExtensionResults": {},
             "response": {"clientDataJSON": "\(Base64.encode(clientData, urlSafe: true, padded: false))",
                          "attestationObject": "\(Base64.encode(object, urlSafe: true, padded: false))", "transports": ["internal"]}}}
            """
    }

    func assertionBody(_ authenticator: SoftwareAuthenticator, challenge: [UInt8], counter: UInt32, userHandle: String) -> String {
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: Self.origin)
        let authData = authenticator.authenticatorData(rpID: "relaydeck.localhost", flags: SoftwareAuthenticator.up | SoftwareAuthenticator.uv,
                                                       counter: counter)
        let signature = authenticator.sign(authData + SHA256.hash(clientData))
        let id = Base64.encode(authenticator.credentialID, urlSafe: true, padded: false)
        func b64(_ bytes: [UInt8]) -> String { Base64.encode(bytes, urlSafe: true, padded: false) }
        return """
            {"credential": {"id": "\(id)", "rawId": "\(id)", "type": "public-key", "response": {"clientDataJSON": "\(b64(clientData))",
             "authenticatorData": "\(b64(authData))", "signature": "\(b64(signature))", "userHandle": "\(b64(Array(userHandle.utf8)))"}}}
            """
    }

    @Test func aPasskeyRegistersAndSignsInAndEachChallengeWorksOnceFor5Minutes() throws {
        let harness = try APIHarness()
        let (account, _, secret) = try signedIn(harness)
        let authenticator = SoftwareAuthenticator(.es256, credentialID: Array(50..<82))
        let options = try harness.send("POST", "/web/passkeys/registration-options", [cookie(secret), sameOrigin])
        #expect(options.status == 200)
        let json = try options.json()
        #expect(json["publicKey"]?["rp"]?["id"]?.stringValue == "relaydeck.localhost")
        #expect(json["publicKey"]?["user"]?["id"]?.stringValue == Base64.encode(Array(account.utf8), urlSafe: true, padded: false))
        let registrationChallenge = try challenge(options)
        // Made for another origin, the registration is refused and the challenge is gone.
        let wrongOrigin = try harness.send("POST", "/web/passkeys", [cookie(secret), sameOrigin],
                                           body: registrationBody(authenticator, challenge: registrationChallenge, origin: "https://evil.example"))
        #expect(wrongOrigin.status == 422 && wrongOrigin.text == validationBody([("credential", "The passkey could not be verified.")]))
        let reused = try harness.send("POST", "/web/passkeys", [cookie(secret), sameOrigin],
                                      body: registrationBody(authenticator, challenge: registrationChallenge))
        #expect(reused.status == 422)
        let fresh = try challenge(try harness.send("POST", "/web/passkeys/registration-options", [cookie(secret), sameOrigin]))
        let made = try harness.send("POST", "/web/passkeys", [cookie(secret), sameOrigin], body: registrationBody(authenticator, challenge: fresh))
        #expect(made.status == 201)
        #expect(try made.json()["passkey"]?["name"]?.stringValue == "My laptop")

        let signIn = try challenge(try harness.send("POST", "/web/passkeys/authentication-options"))
        let signedIn = try harness.send("POST", "/web/passkeys/authentication",
                                        body: assertionBody(authenticator, challenge: signIn, counter: 1, userHandle: account))
        #expect(signedIn.status == 201)
        #expect(try signedIn.json()["account_id"]?.stringValue == account)
        let replayed = try harness.send("POST", "/web/passkeys/authentication",
                                        body: assertionBody(authenticator, challenge: signIn, counter: 2, userHandle: account))
        #expect(replayed.status == 401 && replayed.text == Self.unauthorized)
        // A challenge 5 minutes old is refused.
        let old = try challenge(try harness.send("POST", "/web/passkeys/authentication-options"))
        harness.clock.advance(millis: PasskeyChallenges.lifetimeMillis)
        #expect(try harness.send("POST", "/web/passkeys/authentication",
                                 body: assertionBody(authenticator, challenge: old, counter: 3, userHandle: account)).status == 401)
        // Another account's handle is refused.
        let other = try challenge(try harness.send("POST", "/web/passkeys/authentication-options"))
        #expect(try harness.send("POST", "/web/passkeys/authentication",
                                 body: assertionBody(authenticator, challenge: other, counter: 4, userHandle: "acc_other")).status == 401)
        let current = try harness.send("GET", "/web/session", [cookie(secret)])
        #expect(try current.json()["passkeys"]?.int64Value == 1)
    }

    @Test func passkeyRoutesNeedASession() throws {
        let harness = try APIHarness()
        for (method, path) in [("POST", "/web/passkeys/registration-options"), ("GET", "/web/passkeys"), ("GET", "/web/sessions"),
                               ("GET", "/web/session"), ("DELETE", "/web/session")] {
            let answer = try harness.send(method, path)
            #expect(answer.status == 401 && answer.text == Self.unauthorized, "\(method) \(path)")
        }
    }
}

extension WebRouteTests {
    @Test func passkeyChallengesAndSignInAttemptsAreLimitedByAddress() throws {
        let harness = try APIHarness()
        for _ in 0..<Limits.Rate.webChallenges.count {
            #expect(try harness.send("POST", "/web/passkeys/authentication-options").status == 200)
        }
        let limited = try harness.send("POST", "/web/passkeys/authentication-options")
        #expect(limited.status == 429 && limited.header("Retry-After") != nil)
        // Another address still gets one.
        #expect(try harness.send("POST", "/web/passkeys/authentication-options", peer: .ip(bytes: [192, 0, 2, 9], port: 1)).status == 200)
        for _ in 0..<Limits.Rate.webSignIn.count {
            #expect(try harness.send("POST", "/web/session", body: #"{"login_token": "mcl_x"}"#).status == 401)
        }
        #expect(try harness.send("POST", "/web/session", body: #"{"login_token": "mcl_x"}"#).status == 429)
    }
}
