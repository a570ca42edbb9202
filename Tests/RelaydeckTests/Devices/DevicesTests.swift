import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `Devices`: make or replace, the 20-device limit, one APNs token per registration, delete.
@Suite struct DevicesTests {
    static let phone = "dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b"
    static let tablet = "dev_00000000-0000-4000-8000-000000000001"
    static let token = String(repeating: "a1b2", count: 16)

    static func registration(apns: String? = nil, start: String? = nil, widget: String? = nil,
                             model: String = "iPhone18,1") -> DeviceRegistration {
        DeviceRegistration(platform: .ios, model: described(model), osVersion: described("27.0"),
                           appVersion: described("1.0 (1)"), environment: .production,
                           apnsToken: apns.flatMap(PushToken.init), pushToStartToken: start.flatMap(PushToken.init),
                           widgetPushToken: widget.flatMap(PushToken.init))
    }

    @Test(arguments: StoreKind.allCases)
    func registerStoresEveryFieldAndAbsentTokensAsNull(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let devices = Devices(store: test.store, clock: test.clock)
        let (account, _) = try await test.accounts.create()
        test.clock.wallMillis = 1_760_112_000_412
        let device = try await devices.register(accountID: account.id, deviceID: Self.phone, Self.registration(apns: Self.token))
        #expect(device == Device(id: Self.phone, accountID: account.id, platform: .ios, model: "iPhone18,1",
                                 osVersion: "27.0", appVersion: "1.0 (1)", environment: .production,
                                 apnsToken: Self.token, pushToStartToken: nil, widgetPushToken: nil,
                                 updatedAt: 1_760_112_000_412))
        #expect(try await devices.get(accountID: account.id, deviceID: Self.phone) == device)
    }

    @Test(arguments: StoreKind.allCases)
    func aSecondPutReplacesTheDeviceAndDropsTokensItLeavesOut(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let devices = Devices(store: test.store, clock: test.clock)
        let (account, _) = try await test.accounts.create()
        _ = try await devices.register(accountID: account.id, deviceID: Self.phone,
                                       Self.registration(apns: Self.token, start: "cc" + Self.token, widget: "dd" + Self.token))
        test.clock.advance(millis: 5000)
        let replaced = try await devices.register(accountID: account.id, deviceID: Self.phone, Self.registration(model: "iPhone19,2"))
        #expect(replaced.model == "iPhone19,2")
        #expect(replaced.apnsToken == nil && replaced.pushToStartToken == nil && replaced.widgetPushToken == nil)
        #expect(try await devices.list(accountID: account.id) == [replaced])
    }

    @Test func anAccountHasTwentyDevicesAndMayStillReplaceOne() async throws {
        let test = try TestStore(.memory)
        let devices = Devices(store: test.store, clock: test.clock)
        let (account, _) = try await test.accounts.create()
        let ids = (1...20).map { "dev_00000000-0000-4000-8000-\(String(repeating: "0", count: 10))\($0 < 10 ? "0" : "")\($0)" }
        for id in ids { _ = try await devices.register(accountID: account.id, deviceID: id, Self.registration()) }
        await #expect(throws: DomainError.conflict("An account can have 20 devices.")) {
            try await devices.register(accountID: account.id, deviceID: Self.phone, Self.registration())
        }
        _ = try await devices.register(accountID: account.id, deviceID: ids[3], Self.registration(model: "iPad"))
        #expect(try await devices.list(accountID: account.id).count == 20)
        // Another account has its own twenty.
        let (other, _) = try await test.accounts.create()
        _ = try await devices.register(accountID: other.id, deviceID: Self.phone, Self.registration())
    }

    @Test(arguments: StoreKind.allCases)
    func anAPNsTokenMovesToTheNewRegistrationAndTheOlderOneLosesAllItsTokens(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let devices = Devices(store: test.store, clock: test.clock)
        let (account, _) = try await test.accounts.create()
        let (other, _) = try await test.accounts.create()
        _ = try await devices.register(accountID: account.id, deviceID: Self.phone,
                                       Self.registration(apns: Self.token, start: "cc" + Self.token, widget: "dd" + Self.token))
        _ = try await devices.register(accountID: other.id, deviceID: Self.tablet, Self.registration(apns: "ee" + Self.token))
        test.clock.advance(millis: 1000)
        // The same token in uppercase is the same token.
        let newer = try await devices.register(accountID: account.id, deviceID: Self.tablet, Self.registration(apns: Self.token.uppercased()))
        #expect(newer.apnsToken == Self.token)
        let older = try await devices.get(accountID: account.id, deviceID: Self.phone)
        #expect(older.apnsToken == nil && older.pushToStartToken == nil && older.widgetPushToken == nil)
        #expect(older.updatedAt == test.clock.wallMillis)
        #expect(try await devices.get(accountID: other.id, deviceID: Self.tablet).apnsToken == "ee" + Self.token)
        // Across accounts as well: the app on that phone now belongs to the newest registration.
        _ = try await devices.register(accountID: other.id, deviceID: Self.phone, Self.registration(apns: Self.token))
        #expect(try await devices.get(accountID: account.id, deviceID: Self.tablet).apnsToken == nil)
        // Registering the same token again on the same device keeps it.
        _ = try await devices.register(accountID: other.id, deviceID: Self.phone, Self.registration(apns: Self.token))
        #expect(try await devices.get(accountID: other.id, deviceID: Self.phone).apnsToken == Self.token)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRemovesTheDeviceAndItsLiveActivitiesAndAnUnknownOneIsNotFound(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let devices = Devices(store: test.store, clock: test.clock)
        let (account, _) = try await test.accounts.create()
        let (other, _) = try await test.accounts.create()
        _ = try await devices.register(accountID: account.id, deviceID: Self.phone, Self.registration())
        await #expect(throws: DomainError.notFound("Device not found.")) {
            try await devices.delete(accountID: other.id, deviceID: Self.phone)
        }
        try test.store.write { db in
            try db.execute("INSERT INTO live_activities VALUES ('tsk_1', '\(Self.phone)', '\(account.id)', 'ab', 1)")
        }
        try await devices.delete(accountID: account.id, deviceID: Self.phone)
        #expect(try test.rowCount("devices") == 0)
        #expect(try test.rowCount("live_activities") == 0)
        await #expect(throws: DomainError.notFound("Device not found.")) {
            try await devices.delete(accountID: account.id, deviceID: Self.phone)
        }
    }

    @Test(arguments: [
        ("dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", true),
        ("dev_00000000-0000-0000-0000-000000000000", true),
        ("dev_3F2B8C1E-5A4D-4E6F-9B7A-1C2D3E4F5A6B", false),
        ("dev_3f2b8c1e5a4d4e6f9b7a1c2d3e4f5a6b", false),
        ("dev_{3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b}", false),
        ("3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", false),
        ("dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6", false),
        ("dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6bb", false),
        ("dev_3f2b8c1e-5a4d-4e6f-9b7a_1c2d3e4f5a6b", false),
        ("dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6g", false),
        ("dev_1", false),
        ("", false),
    ])
    func theDeviceIDIsDevPlusALowercaseUUID(text: String, valid: Bool) {
        #expect(DeviceID.isWellFormed(text) == valid)
    }

    @Test(arguments: [
        ("0123456789abcdef", "0123456789abcdef"),
        ("0123456789ABCDEF", "0123456789abcdef"),
        (String(repeating: "f", count: 512), String(repeating: "f", count: 512)),
    ])
    func aPushTokenIsLowercaseHex(text: String, stored: String) {
        #expect(PushToken(text)?.value == stored)
    }

    @Test(arguments: ["", "0123456789abcde", "0123456789abcdef0", String(repeating: "f", count: 514),
                      "0123456789abcdeg", "0123456789abcde ", "0x23456789abcdef", "ｆ123456789abcdef"])
    func aPushTokenThatIsNotWholeBytesOfHexIsRefused(text: String) {
        #expect(PushToken(text) == nil)
    }
}

/// `text` through the device description rule, as the API hands it to the domain.
func described(_ text: String) -> CheckedText {
    switch TextRule.deviceDescription.check(text) {
    case .success(let checked): return checked
    case .failure(let problem): fatalError("not a valid description in a test: \(problem.message)")
    }
}
