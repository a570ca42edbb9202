@testable import API
import Clock
import HTTP
import HTTPTestSupport
import Relaydeck
import Testing

/// A route held for work off the loop (`Pending`) whose rest awaits what is not at hand, as a
/// statement sent to PostgreSQL will be: the work's end and the rest's answer come when the
/// test gives them.
final class PendingRestRoutes: RouteGroup {
    /// The `resume` of each held request, in the order they were held.
    private var held: [(_ rest: @escaping Pending.Rest) -> Void] = []
    /// The continuation of each rest waiting now.
    private var waiting: [CheckedContinuation<String, Never>] = []

    var waitingCount: Int { waiting.count }

    var routes: [Route] {
        [
            Route("/test/held/{name}", [
                Endpoint(.get, .account { [self] _, _ in
                    .pending(Pending(timeout: .seconds(5), start: { [self] resume in held.append(resume) },
                                     expired: APIError(504, "unavailable", "The work did not end in time.")))
                }),
            ]),
        ]
    }

    /// Ends the first held request's work; its rest then awaits `answer` and answers for `name`.
    func endWork(name: String) {
        held.removeFirst()({ [self] in
            let value = await withCheckedContinuation { waiting.append($0) }
            guard value != "missing" else { throw DomainError.notFound("Nothing named \(name).") }
            return .respond(.json(200, Array(#"{"name":"\#(name)","value":"\#(value)"}"#.utf8)))
        })
    }

    /// Gives the first waiting rest its value.
    func answer(_ value: String) {
        waiting.removeFirst().resume(returning: value)
    }
}

/// The rest of a held endpoint (`Pending.Rest`) is async, as an endpoint's body is: a rest
/// that awaits answers the held request once it goes on, its error as the endpoint's own.
@Suite struct PendingRestTests {
    private let routes = PendingRestRoutes()

    private func server() throws -> APIServer {
        try APIServer { [routes] _ in [routes] }
    }

    @Test func aRestThatAwaitsAnswersTheHeldRequestWhenItGoesOn() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/held/a", token: token)
        api.loopback.pump(rounds: 5)
        #expect(!client.hasCompleteResponse)

        routes.endWork(name: "a")
        api.loopback.pump(rounds: 5)
        #expect(routes.waitingCount == 1)
        #expect(!client.hasCompleteResponse)

        routes.answer("x")
        let response = try #require(api.loopback.response(client))
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"name":"a","value":"x"}"#)
        let record = try #require(api.records.last)
        #expect(record.status == 200 && record.parked && record.ending == .answered)
    }

    @Test func aRestThatThrowsAfterItsAwaitIsAnsweredAsTheEndpointsError() throws {
        let api = try server()
        let token = try api.accountToken()
        let client = api.loopback.connect()
        api.get(client, "/test/held/b", token: token)
        api.loopback.pump(rounds: 5)
        routes.endWork(name: "b")
        api.loopback.pump(rounds: 5)

        routes.answer("missing")
        let response = try #require(api.loopback.response(client))
        #expect(response.status == 404)
        #expect(response.bodyText == #"{"error":{"code":"not_found","message":"Nothing named b."}}"#)
    }
}
