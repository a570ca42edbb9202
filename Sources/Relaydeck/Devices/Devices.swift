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

    private let store: any SessionStore
    private let clock: any Clock

    public init(store: any SessionStore, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// Makes or replaces the device `deviceID` of the account (`PUT /v1/devices/{device_id}`).
    /// A new device past the 20th is a conflict; replacing one is not. An `apns_token` that
    /// another registration has leaves that registration with no tokens at all, in the same
    /// transaction: "One APNs token belongs to one device registration." That holds across
    /// accounts too, since the token names the app on one phone: an older account's
    /// registration must not get the notifications of the newer one.
    public func register(accountID: String, deviceID: String, _ registration: DeviceRegistration) async throws -> Device {
        let now = clock.wallMillis
        let device = Device(
            id: deviceID, accountID: accountID, platform: registration.platform, model: registration.model.value,
            osVersion: registration.osVersion.value, appVersion: registration.appVersion.value,
            environment: registration.environment, apnsToken: registration.apnsToken?.value,
            pushToStartToken: registration.pushToStartToken?.value,
            widgetPushToken: registration.widgetPushToken?.value, updatedAt: now)
        try await store.writing { db in
            // The cap counts the account's devices: one writer of the account at a time.
            try await db.lockAccount(accountID)
            if try await !db.exists(SQL.exists, .text(accountID), .text(deviceID)),
               try await db.count(SQL.count, .text(accountID)) >= Self.maxPerAccount {
                throw Self.fullError
            }
            if let token = device.apnsToken {
                try await db.run(SQL.releaseToken, .integer(now), .text(token), .text(accountID), .text(deviceID))
                // Nor the pushes the older registration still had waiting for that token.
                try await db.run(SQL.deleteJobsOfToken, .text(token), .text(accountID), .text(deviceID))
            }
            try await db.run(
                SQL.upsert, .text(accountID), .text(deviceID), .text(device.platform.rawValue), .text(device.model),
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
    public func delete(accountID: String, deviceID: String) async throws {
        try await store.writing { db in
            guard try await db.run(SQL.delete, .text(accountID), .text(deviceID)) == 1 else {
                throw DomainError.notFound("Device not found.")
            }
            try await db.run(SQL.deleteLiveActivities, .text(accountID), .text(deviceID))
            // The pushes still waiting for it have nowhere to go.
            try await db.run(SQL.deleteJobsOfDevice, .text(accountID), .text(deviceID))
        }
    }

    /// The device of the account, or `404`.
    public func get(accountID: String, deviceID: String) async throws -> Device {
        try await store.reading { db in
            guard let device = try await db.firstRow(SQL.get, .text(accountID), .text(deviceID), decode: { try Device(row: $0) }) else {
                throw DomainError.notFound("Device not found.")
            }
            return device
        }
    }

    /// The devices of the account, oldest registration first (for the pushes, and tests).
    public func list(accountID: String) async throws -> [Device] {
        try await store.reading { db in try await db.rows(SQL.list, [.text(accountID)]) { try Device(row: $0) } }
    }

    private static func value(_ text: String?) -> StoreValue {
        text.map { .text($0) } ?? .null
    }

    /// Written for both stores (`$N`, each first in order: `StoreSession`); `LiveActivities`
    /// reads `exists` too.
    enum SQL {
        static let columns = """
            account_id, id, platform, model, os_version, app_version, apns_environment, apns_token, \
            push_to_start_token, widget_push_token, updated_at
            """
        static let get = "SELECT \(columns) FROM devices WHERE account_id = $1 AND id = $2"
        static let list = "SELECT \(columns) FROM devices WHERE account_id = $1 ORDER BY rowid"
        static let exists = "SELECT 1 FROM devices WHERE account_id = $1 AND id = $2"
        static let count = "SELECT count(*) AS n FROM devices WHERE account_id = $1"
        static let releaseToken = """
            UPDATE devices SET apns_token = NULL, push_to_start_token = NULL, widget_push_token = NULL, updated_at = $1 \
            WHERE apns_token = $2 AND NOT (account_id = $3 AND id = $4)
            """
        static let upsert = """
            INSERT INTO devices (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
            ON CONFLICT (account_id, id) DO UPDATE SET platform = excluded.platform, model = excluded.model, \
            os_version = excluded.os_version, app_version = excluded.app_version, \
            apns_environment = excluded.apns_environment, apns_token = excluded.apns_token, \
            push_to_start_token = excluded.push_to_start_token, widget_push_token = excluded.widget_push_token, \
            updated_at = excluded.updated_at
            """
        static let delete = "DELETE FROM devices WHERE account_id = $1 AND id = $2"
        static let deleteLiveActivities = "DELETE FROM live_activities WHERE account_id = $1 AND device_id = $2"
        /// The outbox's rows that a registration takes with it. Here rather than in `OutboxSQL`,
        /// whose statements keep SQLite's form until the push planners run on a session.
        static let deleteJobsOfDevice = "DELETE FROM push_jobs WHERE account_id = $1 AND device_id = $2"
        /// $1 the token, $2 and $3 the registration that keeps it.
        static let deleteJobsOfToken = "DELETE FROM push_jobs WHERE token = $1 AND NOT (account_id = $2 AND device_id = $3)"
    }
}
