import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `LiveActivities`: a registration needs a task and a device of the account.
@Suite struct LiveActivitiesTests {
    let test: TestStore
    let devices: Devices
    let live: LiveActivities
    let accountID: String
    let keyID: String
    static let device = DevicesTests.phone
    static let token = PushToken(String(repeating: "e5f6", count: 20))!

    init() async throws {
        test = try TestStore(.memory)
        devices = Devices(store: test.store, clock: test.clock)
        live = LiveActivities(store: test.store, clock: test.clock)
        let (account, _, keys) = try await test.account(withKeys: 1)
        accountID = account.id
        keyID = keys[0].key.id
        _ = try await devices.register(accountID: accountID, deviceID: Self.device, DevicesTests.registration())
        try insertTask("tsk_1", accountID: accountID, keyID: keyID)
    }

    /// A task row written straight into the table (the tasks service is written elsewhere).
    func insertTask(_ id: String, accountID: String, keyID: String) throws {
        try test.store.write { db in
            try db.execute("""
                INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, \
                created_at, updated_at, created_seq, changed_seq) VALUES ('\(id)', '\(accountID)', '\(keyID)', 't', '', \
                'todo', 'medium', 0, 'agent', 1, 1, 1, 1)
                """)
        }
    }

    @Test func registerKeepsTheNewestTokenOfTheTaskOnTheDevice() async throws {
        try await live.register(accountID: accountID, taskID: "tsk_1", deviceID: Self.device, pushToken: Self.token)
        let newer = PushToken("ab" + Self.token.value)!
        try await live.register(accountID: accountID, taskID: "tsk_1", deviceID: Self.device, pushToken: newer)
        let found = try await live.registrations(accountID: accountID, taskID: "tsk_1")
        #expect(found.map(\.deviceID) == [Self.device])
        #expect(found.map(\.pushToken) == [newer.value])
    }

    @Test func unregisterRemovesItAndIsFineWhenNothingIsRegistered() async throws {
        try await live.unregister(accountID: accountID, taskID: "tsk_1", deviceID: Self.device)
        try await live.register(accountID: accountID, taskID: "tsk_1", deviceID: Self.device, pushToken: Self.token)
        try await live.unregister(accountID: accountID, taskID: "tsk_1", deviceID: Self.device)
        #expect(try await live.registrations(accountID: accountID, taskID: "tsk_1").isEmpty)
    }

    @Test func aTaskOrDeviceOfAnotherAccountIsNotFound() async throws {
        let (other, _, otherKeys) = try await test.account(withKeys: 1)
        try insertTask("tsk_2", accountID: other.id, keyID: otherKeys[0].key.id)
        _ = try await devices.register(accountID: other.id, deviceID: DevicesTests.tablet, DevicesTests.registration())
        // Each is tried as a registration and as its removal.
        let refused = [("tsk_2", Self.device, "Task not found."), ("tsk_none", Self.device, "Task not found."),
                       ("tsk_1", DevicesTests.tablet, "Device not found.")]
        for (taskID, deviceID, message) in refused {
            await #expect(throws: DomainError.notFound(message)) {
                try await live.register(accountID: accountID, taskID: taskID, deviceID: deviceID, pushToken: Self.token)
            }
            await #expect(throws: DomainError.notFound(message)) {
                try await live.unregister(accountID: accountID, taskID: taskID, deviceID: deviceID)
            }
        }
        #expect(try test.rowCount("live_activities") == 0)
    }

    @Test func aTaskOfADeletedKeyIsNotFound() async throws {
        try await test.keys.delete(accountID: accountID, keyID: keyID)
        await #expect(throws: DomainError.notFound("Task not found.")) {
            try await live.register(accountID: accountID, taskID: "tsk_1", deviceID: Self.device, pushToken: Self.token)
        }
    }
}
