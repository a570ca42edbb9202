import Clock
import SQLite

/// The Live Activity registrations of an account's tasks (`rest-api.md#live-activities`): for
/// each task and device, the update token ActivityKit gave, which the `update` and `end`
/// pushes of `push.md#live-activity` go to.
public final class LiveActivities {
    private let store: any SessionStore
    private let clock: any Clock

    public init(store: any SessionStore, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// `PUT /v1/tasks/{task_id}/live-activity`: keeps the newest token of the task on the
    /// device. The task and the device must belong to the account, else `404`.
    public func register(accountID: String, taskID: String, deviceID: String, pushToken: PushToken) async throws {
        let now = clock.wallMillis
        try await store.writing { db in
            try await Self.checkOwnership(db, accountID: accountID, taskID: taskID, deviceID: deviceID)
            try await db.run(SQL.upsert, .text(taskID), .text(deviceID), .text(accountID), .text(pushToken.value), .integer(now))
        }
    }

    /// `DELETE /v1/tasks/{task_id}/live-activity`: `204` also when nothing was registered, but
    /// the task and the device must still belong to the account.
    public func unregister(accountID: String, taskID: String, deviceID: String) async throws {
        try await store.writing { db in
            try await Self.checkOwnership(db, accountID: accountID, taskID: taskID, deviceID: deviceID)
            try await db.run(SQL.delete, .text(taskID), .text(deviceID), .text(accountID))
        }
    }

    /// The registrations of a task: device ID and token, oldest first (for the pushes).
    public func registrations(accountID: String, taskID: String) async throws -> [(deviceID: String, pushToken: String)] {
        try await store.reading { db in
            try await db.rows(SQL.ofTask, [.text(taskID), .text(accountID)]) { row in
                (deviceID: try row.text("device_id"), pushToken: try row.text("push_token"))
            }
        }
    }

    /// The task first (it is in the path), then the device. A task of a deleted key is gone
    /// for the account at once (`rest-api.md#keys`), though its row waits for the purge.
    private static func checkOwnership(_ db: any StoreSession, accountID: String, taskID: String, deviceID: String) async throws {
        guard try await db.exists(SQL.taskOfAccount, .text(taskID), .text(accountID)) else {
            throw DomainError.notFound("Task not found.")
        }
        guard try await db.exists(Devices.SQL.exists, .text(accountID), .text(deviceID)) else {
            throw DomainError.notFound("Device not found.")
        }
    }

    /// Written for both stores (`$N`, each first in order: `StoreSession`).
    enum SQL {
        /// Read here rather than through the tasks service, which is written beside this one;
        /// a task counts only while its key lives.
        static let taskOfAccount = """
            SELECT 1 FROM tasks t JOIN keys k ON k.id = t.key_id \
            WHERE t.id = $1 AND t.account_id = $2 AND k.deleted_at IS NULL
            """
        static let upsert = """
            INSERT INTO live_activities (task_id, device_id, account_id, push_token, updated_at) VALUES ($1, $2, $3, $4, $5) \
            ON CONFLICT (task_id, device_id) DO UPDATE SET push_token = excluded.push_token, updated_at = excluded.updated_at
            """
        static let delete = "DELETE FROM live_activities WHERE task_id = $1 AND device_id = $2 AND account_id = $3"
        static let ofTask = """
            SELECT device_id, push_token FROM live_activities WHERE task_id = $1 AND account_id = $2 ORDER BY updated_at, device_id
            """
    }
}
