import Clock
import SQLite

/// The devices of an account and their push tokens (`rest-api.md#devices`). No event on the
/// stream announces a device (`events.md#event-types` has none); the pushes of `push.md` read
/// the tokens from here.
public final class Devices {
    /// `overview.md#limits`
    public static let maxPerAccount = 20
    /// The refusal of the device past `maxPerAccount` (`409`), written from it.
    public static let fullError = DomainError.conflict("An account can have \(maxPerAccount) devices.")

    private let store: Store
    private let clock: any Clock

    public init(store: Store, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// Makes or replaces the device `deviceID` of the account (`PUT /v1/devices/{device_id}`).
    /// A new device past the 20th is a conflict; replacing one is not. An `apns_token` that
    /// another registration has leaves that registration with no tokens at all, in the same
    /// transaction: "One APNs token belongs to one device registration." That holds across
    /// accounts too, since the token names the app on one phone: an older account's
    /// registration must not get the notifications of the newer one.
    public func register(accountID: String, deviceID: String, _ registration: DeviceRegistration) throws -> Device {
        let now = clock.wallMillis
        let device = Device(
            id: deviceID, accountID: accountID, platform: registration.platform, model: registration.model.value,
            osVersion: registration.osVersion.value, appVersion: registration.appVersion.value,
            environment: registration.environment, apnsToken: registration.apnsToken?.value,
            pushToStartToken: registration.pushToStartToken?.value,
            widgetPushToken: registration.widgetPushToken?.value, updatedAt: now)
        try store.write { db in
            if try !db.exists(SQL.exists, .text(accountID), .text(deviceID)) {
                let count = try db.statement(SQL.count)
                try count.bind(accountID, at: 1)
                defer { count.reset() }
                guard let row = try count.nextRow() else { throw SQLiteError(code: 20, message: "count gave no row", sql: SQL.count) }
                if try row.int("devices") >= Self.maxPerAccount {
                    throw Self.fullError
                }
            }
            if let token = device.apnsToken {
                try db.statement(SQL.releaseToken).run(.integer(now), .text(token), .text(accountID), .text(deviceID))
                // Nor the pushes the older registration still had waiting for that token.
                try db.statement(OutboxSQL.deleteJobsOfToken).run(.text(token), .text(accountID), .text(deviceID))
            }
            try db.statement(SQL.upsert).run(
                .text(accountID), .text(deviceID), .text(device.platform.rawValue), .text(device.model),
                .text(device.osVersion), .text(device.appVersion), .text(device.environment.rawValue),
                Self.value(device.apnsToken), Self.value(device.pushToStartToken), Self.value(device.widgetPushToken),
                .integer(now))
        }
        return device
    }

    /// Removes the device, its Live Activity registrations and its waiting pushes
    /// (`DELETE /v1/devices/{device_id}`).
    /// An unknown device is `404`, as for every resource the account does not have
    /// (`overview.md#errors`); the contract names `204` only for the one that was there.
    public func delete(accountID: String, deviceID: String) throws {
        try store.write { db in
            guard try db.statement(SQL.delete).run(.text(accountID), .text(deviceID)) == 1 else {
                throw DomainError.notFound("Device not found.")
            }
            try db.statement(SQL.deleteLiveActivities).run(.text(accountID), .text(deviceID))
            // The pushes still waiting for it have nowhere to go.
            try db.statement(OutboxSQL.deleteJobsOfDevice).run(.text(accountID), .text(deviceID))
        }
    }

    /// The device of the account, or `404`.
    public func get(accountID: String, deviceID: String) throws -> Device {
        try store.read { db in
            let statement = try db.statement(SQL.get)
            try statement.bind(accountID, at: 1)
            try statement.bind(deviceID, at: 2)
            defer { statement.reset() }
            guard let row = try statement.nextRow() else { throw DomainError.notFound("Device not found.") }
            return try Device(row: row)
        }
    }

    /// The devices of the account, oldest registration first (for the pushes, and tests).
    public func list(accountID: String) throws -> [Device] {
        try store.read { db in try db.rows(SQL.list, [.text(accountID)]) { try Device(row: $0) } }
    }

    private static func value(_ text: String?) -> SQLiteValue {
        text.map { .text($0) } ?? .null
    }

    enum SQL {
        static let columns = """
            account_id, id, platform, model, os_version, app_version, apns_environment, apns_token, \
            push_to_start_token, widget_push_token, updated_at
            """
        static let get = "SELECT \(columns) FROM devices WHERE account_id = ? AND id = ?"
        static let list = "SELECT \(columns) FROM devices WHERE account_id = ? ORDER BY rowid"
        /// Written for both stores (`$N`, each first in order): `LiveActivities` reads it too.
        static let exists = "SELECT 1 FROM devices WHERE account_id = $1 AND id = $2"
        static let count = "SELECT count(*) AS devices FROM devices WHERE account_id = ?"
        static let releaseToken = """
            UPDATE devices SET apns_token = NULL, push_to_start_token = NULL, widget_push_token = NULL, updated_at = ? \
            WHERE apns_token = ? AND NOT (account_id = ? AND id = ?)
            """
        static let upsert = """
            INSERT INTO devices (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
            ON CONFLICT (account_id, id) DO UPDATE SET platform = excluded.platform, model = excluded.model, \
            os_version = excluded.os_version, app_version = excluded.app_version, \
            apns_environment = excluded.apns_environment, apns_token = excluded.apns_token, \
            push_to_start_token = excluded.push_to_start_token, widget_push_token = excluded.widget_push_token, \
            updated_at = excluded.updated_at
            """
        static let delete = "DELETE FROM devices WHERE account_id = ? AND id = ?"
        static let deleteLiveActivities = "DELETE FROM live_activities WHERE account_id = ? AND device_id = ?"
    }
}
