import SQLite

extension WorkTask {
    /// Decodes a row of `TaskSQL.columns`, by name.
    init(row: Row) throws(SQLiteError) {
        let status = try row.text("status")
        let priority = try row.text("priority")
        let source = try row.text("source")
        guard let status = Status(rawValue: status), let priority = Priority(rawValue: priority),
              let source = Source(rawValue: source) else {
            throw SQLiteError(code: 20, message: "a task row has an unknown status, priority or source", sql: row.statement.sql)
        }
        self.init(id: try row.text("id"), accountID: try row.text("account_id"), keyID: try row.text("key_id"),
                  title: try row.text("title"), description: try row.text("description"), status: status,
                  priority: priority, notify: try row.bool("notify"),
                  progress: try row.optionalInt64("progress").map { Int($0) },
                  statusNote: try row.optionalText("status_note"), source: source,
                  createdAt: try row.int64("created_at"), updatedAt: try row.int64("updated_at"),
                  completedAt: try row.optionalInt64("completed_at"), seenAt: try row.optionalInt64("seen_at"),
                  host: try row.optionalText("host"))
    }
}
