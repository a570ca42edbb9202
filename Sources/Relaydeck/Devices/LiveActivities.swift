import Clock
import SQLite

/// The Live Activity registrations of an account's tasks (`rest-api.md#live-activities`): for
/// each task and device, the update token ActivityKit gave, which the `update` and `end`
/// pushes of `push.md#live-activity` go to.
public final class LiveActivities {
    private let store: Store
    private let clock: any Clock

    public init(store: Store, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// `PUT /v1/tasks/{task_id}/live-activity`: keeps the newest token of the task on the
    /// device. The task and the device must belong to the account, else `404`.
    public func register(accountID: String, taskID: String, deviceID: String, pushToken: PushToken) throws {
        let now = clock.wallMillis
        try store.write { db in
            try Self.checkOwnership(db, accountID: accountID, taskID: taskID, deviceID: deviceID)
            try db.statement(SQL.upsert).run(.text(taskID), .text(deviceID), .text(accountID), .text(pushToken.value), .integer(now))
        }
    }

    /// `DELETE /v1/tasks/{task_id}/live-activity`: `204` also when nothing was registered, but
    /// the task and the device must still belong to the account.
    public func unregister(accountID: String, taskID: String, deviceID: String) throws {
        try store.write { db in
            try Self.checkOwnership(db, accountID: accountID, taskID: taskID, deviceID: deviceID)
            try db.statement(SQL.delete).run(.text(taskID), .text(deviceID), .text(accountID))
        }
    }

    /// The registrations of a task: device ID and token, oldest first (for the pushes).
    public func registrations(accountID: String, taskID: String) throws -> [(deviceID: String, pushToken: String)] {
        try store.read { db in
            try db.rows(SQL.ofTask, [.text(taskID), .text(accountID)]) { row in
                (deviceID: try row.text("device_id"), pushToken: try row.text("push_token"))
            }
        }
    }

    /// The task first (it is in the path), then the device. A task of a deleted key is gone
    /// for the account at once (`rest-api.md#keys`), though its row waits for the purge.
    private static func checkOwnership(_ db: Database, accountID: String, taskID: String, deviceID: String) throws {
        let task = try db.statement(SQL.taskOfAccount)
        try task.bind(taskID, at: 1)
        try task.bind(accountID, at: 2)
        defer { task.reset() }
        guard try task.step() else { throw DomainError.notFound("Task not found.") }
        guard try Devices.exists(db, accountID: accountID, deviceID: deviceID) else {
            throw DomainError.notFound("Device not found.")
        }
    }

    enum SQL {
        /// Read here rather than through the tasks service, which is written beside this one;
        /// a task counts only while its key lives.
        static let taskOfAccount = """
            SELECT 1 FROM tasks t JOIN keys k ON k.id = t.key_id \
            WHERE t.id = ? AND t.account_id = ? AND k.deleted_at IS NULL
            """
        static let upsert = """
            INSERT INTO live_activities (task_id, device_id, account_id, push_token, updated_at) VALUES (?, ?, ?, ?, ?) \
            ON CONFLICT (task_id, device_id) DO UPDATE SET push_token = excluded.push_token, updated_at = excluded.updated_at
            """
        static let delete = "DELETE FROM live_activities WHERE task_id = ? AND device_id = ? AND account_id = ?"
        static let ofTask = """
            SELECT device_id, push_token FROM live_activities WHERE task_id = ? AND account_id = ? ORDER BY updated_at, device_id
            """
    }
}
