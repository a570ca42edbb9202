@testable import API
import Clock
import EventLoop
import HTTP
import HTTPClient
import JSON
import Relaydeck
import Testing

/// Client ID Metadata Documents at `/oauth/authorize` (issue 24): an `https:` URL as
/// `client_id` is fetched off the loop (`Outcome.pending`), checked, kept while its caching
/// allows, and a document that cannot be had or does not hold is this server's page, never a
/// redirect. The fetch is the test's own here (what it answers, on the loop's next phase); the
/// real one, over the network, is `Tests/e2e/test_oauth_client_documents.py`'s.
@Suite struct ClientDocumentTests {
    static let url = "https://connector.example/oauth/client.json"
    let oauth: OAuthHarness
    /// What the fetch answers next, and every URL it was asked.
    final class Fake {
        var answer: Result<HTTPClientResponse, HTTPClientFailure> = .failure(.timeout("no answer set"))
        var asked: [String] = []
    }
    let fake = Fake()

    init() async throws {
        oauth = try await OAuthHarness()
        let (fake, loop) = (fake, oauth.api.loop)
        oauth.api.handler.context.clientDocuments.fetch = { url, done in
            fake.asked.append(url.description)
            let answer = fake.answer
            loop.runSoon { done(answer) }
        }
    }

    static func document(_ members: String = "", cache: String = "max-age=600", status: Int = 200) throws -> Result<HTTPClientResponse, HTTPClientFailure> {
        let body = #"{"client_id":"\#(url)","client_name":"Metadata client","redirect_uris":["\#(OAuthHarness.redirect)"]\#(members)}"#
        return .success(HTTPClientResponse(url: try HTTPURL(url), status: status,
                                           headers: ["Content-Type": "application/json", "Cache-Control": cache],
                                           body: Array(body.utf8)))
    }

    func authorize(clientID: String = Self.url) throws -> Answer {
        let query = "client_id=\(AuthorizationRequest.percentEncoded(clientID))&redirect_uri=\(AuthorizationRequest.percentEncoded(OAuthHarness.redirect))"
            + "&response_type=code&code_challenge=\(OAuthHarness.challenge)&code_challenge_method=S256"
            + "&resource=https%3A%2F%2Frelay.example%2Fmcp&state=s"
        return try oauth.api.send("GET", "/oauth/authorize?" + query)
    }

    @Test func aDocumentIsFetchedKeptWhileFreshAndTheRequestGoesOn() async throws {
        fake.answer = try Self.document()
        let first = try authorize()
        #expect(first.status == 302 && first.header("Location")?.hasPrefix("/app/#/authorize?client_id=https%3A%2F%2F") == true)
        let client = try #require(try await oauth.api.services.oauthClients.get(Self.url))
        #expect(client.kind == OAuthClient.Kind.document && client.name == "Metadata client" && client.authMethod == .none)
        #expect(client.redirectURIs == [OAuthHarness.redirect])
        #expect(try authorize().status == 302)
        #expect(fake.asked == [Self.url])
        // Ten minutes on, the copy is stale: fetched again.
        oauth.api.clock.advance(millis: 600_000)
        #expect(try authorize().status == 302)
        #expect(fake.asked == [Self.url, Self.url])
    }

    @Test func aDocumentThatMayNotBeKeptIsFetchedEachTime() throws {
        fake.answer = try Self.document(cache: "no-store")
        #expect(try authorize().status == 302)
        #expect(try authorize().status == 302)
        #expect(fake.asked.count == 2)
    }

    @Test func aDocumentsClientTradesItsCodeAsAPublicClient() async throws {
        fake.answer = try Self.document()
        #expect(try authorize().status == 302)
        let client = try #require(try await oauth.api.services.oauthClients.get(Self.url))
        let code = try await oauth.code(client: client)
        let answer = try oauth.post("/oauth/token", "grant_type=authorization_code&code=\(code)&redirect_uri=\(OAuthHarness.redirect)"
            + "&code_verifier=\(OAuthHarness.verifier)&client_id=\(AuthorizationRequest.percentEncoded(Self.url))")
        #expect(answer.status == 200)
    }

    @Test(arguments: [
        (HTTPClientFailure.blockedAddress("x"), "The client metadata document is on an address of this machine or its network, which this server does not fetch from."),
        (.timeout("x"), "The client metadata document did not arrive within 5 seconds."),
        (.tooLarge("x"), "The client metadata document is larger than 64 KiB."),
        (.redirectRefused("x"), "The client metadata document redirects to another host, which this server does not follow."),
        (.connect("connection refused"), "The client metadata document could not be fetched (connection refused)."),
    ])
    func aFetchThatFailsIsThisServersPageAndNoRedirect(_ failure: HTTPClientFailure, _ message: String) async throws {
        fake.answer = .failure(failure)
        let answer = try authorize()
        #expect(answer.status == 400 && answer.header("Location") == nil)
        #expect(answer.text.contains("<p>\(SitePage.escape(message))</p>"))
        #expect(try await oauth.api.services.oauthClients.get(Self.url) == nil)
    }

    @Test(arguments: [
        (#","client_id":"https://someone.example/else.json""#, "The document's client_id is not the URL it was fetched from."),
        (#","token_endpoint_auth_method":"client_secret_post""#, "A metadata document's client must be public (token_endpoint_auth_method none)."),
    ])
    func aDocumentThatDoesNotHoldIsRefused(_ members: String, _ message: String) throws {
        // A second client_id member is a duplicate: the body is checked for those too.
        let body: String
        if members.contains("client_id") {
            body = #"{"client_id":"https://someone.example/else.json","redirect_uris":["\#(OAuthHarness.redirect)"]}"#
        } else {
            body = #"{"client_id":"\#(Self.url)","redirect_uris":["\#(OAuthHarness.redirect)"]\#(members)}"#
        }
        fake.answer = .success(HTTPClientResponse(url: try HTTPURL(Self.url), status: 200, body: Array(body.utf8)))
        let answer = try authorize()
        #expect(answer.status == 400 && answer.header("Location") == nil)
        #expect(answer.text.contains(SitePage.escape("The client metadata document is not valid: \(message)")))
    }

    @Test func anAnswerOtherThan200IsRefused() throws {
        fake.answer = try Self.document(status: 404)
        let answer = try authorize()
        #expect(answer.status == 400 && answer.text.contains("The client metadata document answered 404, not 200."))
    }

    @Test(arguments: ["https://connector.example", "https://connector.example/", "http://connector.example/client.json",
                      "https://user@connector.example/client.json"])
    func aURLThatNamesNoDocumentIsAnUnknownClient(clientID: String) throws {
        let answer = try authorize(clientID: clientID)
        #expect(answer.status == 400 && answer.text.contains("The client is not registered with this server."))
        #expect(fake.asked.isEmpty)
    }
}
