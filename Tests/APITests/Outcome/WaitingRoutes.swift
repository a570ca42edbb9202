@testable import API
import Clock
import HTTP
import JSON
import Relaydeck

/// A route that waits, written as a route of the contract will be: typed query, an answer
/// now or a park with a wake-up topic (like `GET /v1/questions/{question_id}?wait=`).
final class WaitingRoutes: RouteGroup {
    /// What each thing has become; a missing entry is still pending.
    var results: [String: String] = [:]
    /// Things that no longer exist (a poll then fails with 404).
    var deleted: Set<String> = []

    var routes: [Route] {
        [
            Route("/test/things/{thing_id}", [
                Endpoint(.get, .accountOrKey { [self] call, _ in try get(&call) }),
            ]),
            Route("/test/stream", [
                Endpoint(.get, .account { _, account in
                    .stream(StreamOpening(pingInterval: .seconds(20)) { stream in
                        stream.send(event: "ready", data: Array(#"{"account_id":"\#(account.accountID)"}"#.utf8))
                    })
                }),
            ]),
        ]
    }

    static func topic(_ id: String) -> WakeTopic { WakeTopic("thing:\(id)") }

    func get(_ call: inout Call) throws -> Outcome {
        let id = try call.path("thing_id")
        var query = call.queryReader()
        let wait = query.read("wait", .int(0...50)) ?? 0
        try query.check()
        if let answer = try current(id) ?? (wait == 0 ? pending : nil) {
            return .respond(answer)
        }
        return .park(Wait(timeout: .seconds(wait), topics: [Self.topic(id)],
                          poll: { [self] in try current(id) },
                          expire: { [self] in pending }))
    }

    private func current(_ id: String) throws -> HTTPResponse? {
        if deleted.contains(id) { throw DomainError.notFound("Thing not found.") }
        return results[id].map { .json(200, Array(#"{"status":"\#($0)"}"#.utf8)) }
    }

    private var pending: HTTPResponse { .json(200, Array(#"{"status":"pending"}"#.utf8)) }
}
