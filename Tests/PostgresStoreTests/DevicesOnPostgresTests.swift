import Clock
import Crypto
import EventLoop
import Postgres
import PostgresStore
@testable import Relaydeck
import Testing

/// `Devices` and `WebPushSubscriptions` on a real PostgreSQL database (`PostgresSessionStore`
/// over the filled store's copy, `PostgresSessionStoreTests.Filled`), with the rules their
/// SQLite tests check: 20 devices an account, an APNs token moved to the newest registration
/// across accounts, a device deleted with its live activities and pushes; 10 subscriptions an
/// account, one endpoint per subscription, the VAPID key made once.
@Suite struct DevicesOnPostgresTests {
    static let token = String(repeating: "a1b2", count: 16)

    static func registration(apns: String? = nil, widget: String? = nil, model: String = "iPhone18,1") -> DeviceRegistration {
        DeviceRegistration(platform: .ios, model: described(model), osVersion: described("27.0"), appVersion: described("1.0 (1)"),
                           environment: .production, apnsToken: apns.flatMap(PushToken.init), pushToStartToken: nil,
                           widgetPushToken: widget.flatMap(PushToken.init))
    }

    static func described(_ text: String) -> CheckedText {
        switch TextRule.deviceDescription.check(text) {
        case .success(let checked): return checked
        case .failure(let problem): fatalError("not a valid description in a test: \(problem.message)")
        }
    }

    static func subscription(_ endpoint: String, label: String? = nil) -> WebPushSubscriptions.Registration {
        WebPushSubscriptions.Registration(endpoint: endpoint, p256dh: Array(repeating: 4, count: 65), auth: Array(repeating: 9, count: 16),
                                          label: label, expirationTime: nil)
    }

    @Test func aDeviceIsRegisteredReplacedAndListedOldestFirstOnPostgreSQL() throws {
        let db = try Filled()
        let clock = ManualClock(wallMillis: 1_760_112_000_412)
        let devices = Devices(store: db.store, clock: clock)
        let made = try db.run { try await devices.register(accountID: "acc_1", deviceID: "dev_2", Self.registration(apns: Self.token)) }
        #expect(made == Device(id: "dev_2", accountID: "acc_1", platform: .ios, model: "iPhone18,1", osVersion: "27.0",
                               appVersion: "1.0 (1)", environment: .production, apnsToken: Self.token, pushToStartToken: nil,
                               widgetPushToken: nil, updatedAt: 1_760_112_000_412))
        #expect(try db.run { try await devices.get(accountID: "acc_1", deviceID: "dev_2") } == made)
        clock.advance(millis: 5000)
        // Replaced: the tokens it leaves out are gone, and it keeps its place in the list.
        let replaced = try db.run { try await devices.register(accountID: "acc_1", deviceID: "dev_2", Self.registration(model: "iPhone19,2")) }
        #expect(replaced.apnsToken == nil && replaced.updatedAt == 1_760_112_005_412)
        let listed = try db.run { try await devices.list(accountID: "acc_1") }
        #expect(listed.map(\.id) == ["dev_1", "dev_2"])
        #expect(listed.last == replaced)
        #expect(throws: DomainError.notFound("Device not found.")) {
            try db.run { try await devices.get(accountID: "acc_2", deviceID: "dev_2") }
        }
    }

    /// Two writers (two connections, as two nodes have) register the account's 20th device
    /// at once: both count 19 committed devices unless the first holds the account's row
    /// until its COMMIT (`lockAccount`); with it, one passes and the other is refused.
    @Test func twoWritersAtOnceCannotBothTakeTheLastDevicePlace() throws {
        let db = try Filled()
        let devices = Devices(store: db.store, clock: ManualClock())
        let other = Devices(store: try db.driver.sessionStore(db.database), clock: ManualClock())
        try db.run { for id in (2...19).map({ "dev_\($0)" }) { _ = try await devices.register(accountID: "acc_1", deviceID: id, Self.registration()) } }
        var outcomes: [Result<Device, any Error>] = []
        for (service, id) in [(devices, "dev_20"), (other, "dev_21")] {
            db.driver.loop.startTask {
                do { outcomes.append(.success(try await service.register(accountID: "acc_1", deviceID: id, Self.registration()))) }
                catch { outcomes.append(.failure(error)) }
            }
        }
        db.driver.run { outcomes.count == 2 }
        let refused = outcomes.filter { if case .failure(let error) = $0 { (error as? DomainError) == Devices.fullError } else { false } }
        #expect(outcomes.count == 2 && refused.count == 1, "\(outcomes)")
        #expect(try db.count("SELECT count(*) AS n FROM devices WHERE account_id = 'acc_1'") == 20)
    }

    @Test func anAccountHasTwentyDevicesAndMayStillReplaceOneOnPostgreSQL() throws {
        let db = try Filled()
        let devices = Devices(store: db.store, clock: ManualClock())
        // The filled account has dev_1 already.
        let ids = (2...20).map { "dev_\($0)" }
        try db.run { for id in ids { _ = try await devices.register(accountID: "acc_1", deviceID: id, Self.registration()) } }
        #expect(throws: Devices.fullError) {
            try db.run { try await devices.register(accountID: "acc_1", deviceID: "dev_21", Self.registration()) }
        }
        _ = try db.run { try await devices.register(accountID: "acc_1", deviceID: "dev_7", Self.registration(model: "iPad")) }
        #expect(try db.count("SELECT count(*) AS n FROM devices WHERE account_id = 'acc_1'") == 20)
        // Another account has its own twenty.
        _ = try db.run { try await devices.register(accountID: "acc_2", deviceID: "dev_21", Self.registration()) }
    }

    @Test func anAPNsTokenMovesToTheNewestRegistrationAcrossAccountsOnPostgreSQL() throws {
        let db = try Filled()
        let clock = ManualClock(wallMillis: 1_760_112_000_000)
        let devices = Devices(store: db.store, clock: clock)
        // dev_1 of acc_1 has a widget token, and its APNs token (made one the service takes)
        // has a push waiting.
        _ = try db.driver.query(db.connection, "UPDATE devices SET apns_token = '\(Self.token)' WHERE id = 'dev_1'")
        _ = try db.driver.query(db.connection, "UPDATE push_jobs SET token = '\(Self.token)' WHERE token = 'aa11'")
        // The same token in uppercase is the same token.
        _ = try db.run { try await devices.register(accountID: "acc_2", deviceID: "dev_9", Self.registration(apns: Self.token.uppercased())) }
        let older = try db.run { try await devices.get(accountID: "acc_1", deviceID: "dev_1") }
        #expect(older.apnsToken == nil && older.pushToStartToken == nil && older.widgetPushToken == nil)
        #expect(older.updatedAt == 1_760_112_000_000)
        #expect(try db.count("SELECT count(*) AS n FROM push_jobs WHERE token = '\(Self.token)'") == 0)
        #expect(try db.count("SELECT count(*) AS n FROM push_jobs") == 1, "the live activity's push stays")
        // Registering the same token again on the same device keeps it.
        _ = try db.run { try await devices.register(accountID: "acc_2", deviceID: "dev_9", Self.registration(apns: Self.token)) }
        #expect(try db.run { try await devices.get(accountID: "acc_2", deviceID: "dev_9") }.apnsToken == Self.token)
    }

    @Test func aDeletedDeviceTakesItsLiveActivitiesAndPushesAndAnUnknownOneIsNotFoundOnPostgreSQL() throws {
        let db = try Filled()
        let devices = Devices(store: db.store, clock: ManualClock())
        #expect(throws: DomainError.notFound("Device not found.")) {
            try db.run { try await devices.delete(accountID: "acc_2", deviceID: "dev_1") }
        }
        try db.run { try await devices.delete(accountID: "acc_1", deviceID: "dev_1") }
        for table in ["devices", "live_activities", "push_jobs"] {
            #expect(try db.count("SELECT count(*) AS n FROM \(table)") == 0, "\(table)")
        }
        #expect(throws: DomainError.notFound("Device not found.")) {
            try db.run { try await devices.delete(accountID: "acc_1", deviceID: "dev_1") }
        }
    }

    @Test func aSubscriptionIsStoredReplacedListedAndRemovedOnPostgreSQL() throws {
        let db = try Filled()
        let clock = ManualClock(wallMillis: 1_760_000_000_000)
        let subscriptions = WebPushSubscriptions(store: db.store, clock: clock)
        let stored = try db.run {
            try await subscriptions.put(accountID: "acc_1", id: "wps_2", Self.subscription("https://push.example/2", label: "Firefox"))
        }
        #expect(stored == WebPushSubscription(id: "wps_2", accountID: "acc_1", endpoint: "https://push.example/2",
                                              p256dh: Array(repeating: 4, count: 65), auth: Array(repeating: 9, count: 16),
                                              label: "Firefox", expirationTime: nil, createdAt: 1_760_000_000_000,
                                              updatedAt: 1_760_000_000_000))
        clock.advance(millis: 5000)
        let replaced = try db.run { try await subscriptions.put(accountID: "acc_1", id: "wps_2", Self.subscription("https://push.example/3")) }
        #expect(replaced.createdAt == 1_760_000_000_000 && replaced.updatedAt == 1_760_000_005_000 && replaced.label == nil)
        #expect(try db.run { try await subscriptions.get(accountID: "acc_1", id: "wps_2") } == replaced)
        #expect(try db.run { try await subscriptions.list(accountID: "acc_1") }.map(\.id) == ["wps_1", "wps_2"])
        // Removed with the message still waiting for it.
        try db.run { try await subscriptions.delete(accountID: "acc_1", id: "wps_1") }
        #expect(try db.count("SELECT count(*) AS n FROM web_push_jobs") == 0)
        #expect(try db.run { try await subscriptions.list(accountID: "acc_1") } == [replaced])
        let refused: [() async throws -> Void] = [{ try await subscriptions.delete(accountID: "acc_1", id: "wps_1") },
                                                  { _ = try await subscriptions.get(accountID: "acc_2", id: "wps_2") }]
        for action in refused {
            #expect(throws: WebPushSubscriptions.notFound) { try db.run(action) }
        }
    }

    @Test func anEndpointSubscribedAgainLeavesItsOlderSubscriptionAndTheTenthIsTheLastOnPostgreSQL() throws {
        let db = try Filled()
        let subscriptions = WebPushSubscriptions(store: db.store, clock: ManualClock())
        // The browser of wps_1 subscribes again, for another account.
        _ = try db.run { try await subscriptions.put(accountID: "acc_2", id: "wps_9", Self.subscription("https://push.example/1")) }
        #expect(try db.run { try await subscriptions.list(accountID: "acc_1") }.isEmpty)
        try db.run {
            for index in 1...9 {
                _ = try await subscriptions.put(accountID: "acc_2", id: "wps_b\(index)", Self.subscription("https://push.example/b\(index)"))
            }
        }
        #expect(throws: WebPushSubscriptions.fullError) {
            try db.run { try await subscriptions.put(accountID: "acc_2", id: "wps_b10", Self.subscription("https://push.example/b10")) }
        }
        _ = try db.run { try await subscriptions.put(accountID: "acc_2", id: "wps_b4", Self.subscription("https://push.example/b4", label: "Again")) }
        #expect(try db.run { try await subscriptions.list(accountID: "acc_2") }.count == 10)
    }

    @Test func theVAPIDKeyIsMadeOnceAndReadBackOnPostgreSQL() throws {
        let db = try Filled()
        _ = try db.driver.query(db.connection, "DELETE FROM web_push_vapid")
        let made = try db.run { try await WebPushSubscriptions(store: db.store, clock: ManualClock()).vapidKey() }
        #expect(try db.count("SELECT count(*) AS n FROM web_push_vapid") == 1)
        let again = WebPushSubscriptions(store: db.store, clock: ManualClock())
        #expect(again.keptVAPIDKey == nil)
        #expect(try db.run { try await again.vapidKey() }.publicKey == made.publicKey)
        #expect(again.keptVAPIDKey?.publicKey == made.publicKey)
    }

    /// Two nodes starting at once on a database without a key: each reads none and makes
    /// one; the second's insert finds the first's (it waited for its COMMIT on the key's row)
    /// and reads it back. Before, it failed on the primary key and that node had no key.
    @Test func twoNodesMakingTheVAPIDKeyAtOnceBothKeepTheFirstOnPostgreSQL() throws {
        let db = try Filled()
        _ = try db.driver.query(db.connection, "DELETE FROM web_push_vapid")
        let nodes = [WebPushSubscriptions(store: db.store, clock: ManualClock()),
                     WebPushSubscriptions(store: try db.driver.sessionStore(db.database), clock: ManualClock())]
        var keys: [Result<P256.PrivateKey, any Error>] = []
        for node in nodes {
            db.driver.loop.startTask {
                do { keys.append(.success(try await node.vapidKey())) } catch { keys.append(.failure(error)) }
            }
        }
        db.driver.loop.run(until: { keys.count == 2 }, within: .seconds(30))
        let made = try keys.map { try $0.get().publicKey }
        #expect(made.count == 2 && made[0] == made[1])
        #expect(try db.count("SELECT count(*) AS n FROM web_push_vapid") == 1)
    }
}

private typealias Filled = PostgresSessionStoreTests.Filled
