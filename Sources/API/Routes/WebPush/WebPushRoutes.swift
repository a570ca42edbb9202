import Crypto
import EventLoop
import HTTP
import JSON
import Relaydeck
import WebPush

/// Web Push (issue 21): the server's VAPID key and the browsers' subscriptions, so that a
/// person without the Apple app is reached too. Account token or web session; an API key
/// gets `403`.
final class WebPushRoutes: RouteGroup {
    let context: APIContext
    var subscriptions: WebPushSubscriptions { context.services.webPush }

    /// Test notifications: `Limits.Rate.webPushTests` for each account.
    private let testLimiter: RateLimit

    init(_ context: APIContext) {
        self.context = context
        testLimiter = context.rateLimit(.webPushTests)
    }

    var routes: [Route] {
        [
            Route("/v1/web-push/key", [
                Endpoint(.get, .account { [self] _, _ in try await key() }),
            ]),
            Route("/v1/web-push/subscriptions", [
                Endpoint(.get, .account { [self] _, account in try await list(account) }),
            ]),
            Route("/v1/web-push/subscriptions/{subscription_id}", [
                Endpoint(.put, body: true, .account { [self] call, account in try await put(&call, account) }),
                Endpoint(.delete, .account { [self] call, account in try await delete(&call, account) }),
            ]),
            Route("/v1/web-push/subscriptions/{subscription_id}/test", [
                Endpoint(.post, .account { [self] call, account in try await test(&call, account) }),
            ]),
        ]
    }

    /// `GET /v1/web-push/key`: `200 {"public_key"}`, the VAPID key as base64url of the
    /// uncompressed point (what `PushManager.subscribe`'s `applicationServerKey` takes).
    func key() async throws -> Outcome {
        let publicKey = try await subscriptions.vapidKey().publicKey
        return Answers.object(capacity: 128) { writer in
            writer.beginObject()
            writer.key("public_key")
            writer.string(Base64.encode(publicKey, urlSafe: true, padded: false))
            writer.endObject()
        }
    }

    /// `GET /v1/web-push/subscriptions`: `200 {"subscriptions": [Subscription]}`, oldest first.
    func list(_ account: AccountCaller) async throws -> Outcome {
        Answers.list("subscriptions", try await subscriptions.list(accountID: account.accountID), bytesEach: 2300) { $0.write(to: &$1) }
    }

    /// `PUT /v1/web-push/subscriptions/{subscription_id}`: the browser's
    /// `PushSubscription.toJSON()` as it is (`endpoint`, `expirationTime`, `keys.p256dh`,
    /// `keys.auth`) and an optional `label`; `200` with the stored subscription. A malformed
    /// ID is a `422` on `subscription_id` with the body's problems, as a device's. An endpoint
    /// named by a DNS name is looked up first, off the loop (`Pending`), unless private hosts
    /// are allowed: a name that leads to this machine or its networks is a `422` too.
    func put(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        let id = try call.path("subscription_id")
        let allowsPrivateHosts = context.configuration.webPushAllowsPrivateHosts
        var body = call.bodyReader()
        body.require("endpoint")
        body.require("keys")
        let endpoint = body.read("endpoint", .pushEndpoint(allowingPrivateHosts: allowsPrivateHosts))
        // The browser writes `null` when the subscription does not expire.
        let expirationTime = body.readNullable("expirationTime", .int(0...Self.latestExpiration)).value
        let label = body.readNullable("label", .text(.webPushLabel)).value
        var p256dh: P256.PublicKey?
        var auth: [UInt8]?
        if var keys = body.object("keys") {
            keys.require("p256dh")
            keys.require("auth")
            p256dh = keys.read("p256dh", .shaped("Must be a P-256 public key: base64url of an uncompressed point.") { text in
                Base64.decode(text).flatMap { P256.PublicKey(uncompressed: $0) }
            })
            auth = keys.read("auth", .shaped("Must be base64url of 16 bytes.") { text in
                Base64.decode(text).flatMap { $0.count == 16 ? $0 : nil }
            })
            body.merge(keys)
        }
        if !WebPushSubscriptionID.isWellFormed(id) { body.add("subscription_id", WebPushSubscriptionID.problem) }
        try body.check()
        guard let endpoint, let p256dh, let auth else { throw APIError.defect("a checked subscription body lost a field") }
        let registration = WebPushSubscriptions.Registration(
            endpoint: endpoint.url, p256dh: p256dh.bytes, auth: auth, label: label?.value, expirationTime: expirationTime.map { Int64($0) })
        let store = { [subscriptions] () async throws -> Outcome in
            let stored = try await subscriptions.put(accountID: account.accountID, id: id, registration)
            return Answers.object(capacity: 2300) { stored.write(to: &$0) }
        }
        // A literal address was judged by the field's rule, without a lookup.
        if allowsPrivateHosts || IPAddress(endpoint.host) != nil { return try await store() }
        return try lookingUp(endpoint.host, for: account.accountID, then: store)
    }

    /// Holds the `PUT` while `host` is looked up, then stores the subscription if every
    /// address of the name is public (`PushHostCheck`); else the refusal of its verdict.
    private func lookingUp(_ host: String, for accountID: String, then store: @escaping Pending.Rest) throws -> Outcome {
        let lookups = context.pushHostLookups
        try lookups.admit(accountID)
        let check = context.pushHostCheck
        let loop = context.loop
        return .pending(Pending(timeout: Limits.pushLookupTime, start: { resume in
            check.check(host, loop: loop) { verdict in
                lookups.release(accountID)
                resume {
                    try Self.accept(verdict)
                    return try await store()
                }
            }
        }, expired: Limits.pushLookupFailedRefusal))
    }

    /// The lookup's verdict as the contract's answer: nothing for a public host, a `422` on
    /// `endpoint` for a private one or a name without an address, a `503` for a lookup that
    /// failed for now (no DNS server answered).
    static func accept(_ verdict: PushHostCheck.Verdict) throws {
        switch verdict {
        case .allowed:
            return
        case .privateAddress:
            throw APIError.validation([FieldProblem("endpoint", privateHostMessage)])
        case .noAddress:
            throw APIError.validation([FieldProblem("endpoint", "Must be a push service on the internet: its host name has no address.")])
        case .lookupFailed:
            throw Limits.pushLookupFailedRefusal
        }
    }

    static let privateHostMessage = "Must be a push service on the internet, not an address of this machine or its network."

    /// `DELETE /v1/web-push/subscriptions/{subscription_id}`: `204`, or `404`.
    func delete(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        let id = try call.path("subscription_id")
        try await subscriptions.delete(accountID: account.accountID, id: id)
        return Answers.noContent
    }

    /// `POST /v1/web-push/subscriptions/{subscription_id}/test`: a test notification to that
    /// browser, queued like any other and sent after the answer: `202 {}`; `404` for an unknown
    /// subscription; `429` past 5 a minute for the account.
    func test(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        let id = try call.path("subscription_id")
        _ = try await subscriptions.get(accountID: account.accountID, id: id)
        try await testLimiter.admit(account.accountID, now: context.nowMicros)
        try await context.services.webPushPlanner.test(context.services.store, accountID: account.accountID, subscriptionID: id)
        return Answers.object(202, capacity: 8) { writer in
            writer.beginObject()
            writer.endObject()
        }
    }

    /// The latest `expirationTime` taken: the year 9999, as far as a timestamp is written.
    static let latestExpiration = 253_402_300_799_999
}

extension FieldKind where Value == PushEndpoint {
    /// A push service's endpoint (`PushEndpoint`), refused with the reason; a host that is an
    /// address of this machine or its networks (or `localhost`) is refused too unless the
    /// administrator allows it (`WEB_PUSH_ALLOW_PRIVATE_HOSTS`). Any other name is looked up
    /// before the subscription is stored (`PushHostCheck`), and again at each send.
    static func pushEndpoint(allowingPrivateHosts: Bool) -> FieldKind {
        FieldKind { value, _ in
            guard case .string(let text) = value else { return .failure(FieldMessage("Must be a string.")) }
            let endpoint: PushEndpoint
            do throws(PushEndpoint.Refusal) {
                endpoint = try PushEndpoint(text)
            } catch {
                return .failure(FieldMessage("Must be a push service's URL: it \(error.reason)."))
            }
            if !allowingPrivateHosts && PushAddressRule.isPrivateName(endpoint.host) {
                return .failure(FieldMessage(WebPushRoutes.privateHostMessage))
            }
            return .success(endpoint)
        }
    }
}
