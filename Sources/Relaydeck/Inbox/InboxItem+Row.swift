import SQLite

extension InboxItem {
    /// Decodes a row of `InboxSQL.columns`, by name.
    init(row: Row) throws(SQLiteError) {
        guard let kind = Kind(rawValue: try row.text("kind")) else {
            throw SQLiteError(code: 20, message: "an inbox row has an unknown kind", sql: row.statement.sql)
        }
        let from: Sender = if let keyID = try row.optionalText("from_key_id") {
            .agent(keyID: keyID, label: try row.optionalText("from_label") ?? "")
        } else {
            .person
        }
        self.init(id: try row.text("id"), accountID: try row.text("account_id"), keyID: try row.text("key_id"),
                  kind: kind, from: from, taskID: try row.optionalText("task_id"),
                  questionID: try row.optionalText("question_id"), text: try row.text("text"),
                  createdAt: try row.int64("created_at"), readAt: try row.optionalInt64("read_at"))
    }
}
