import JSON
import SQLite

extension Question {
    /// Decodes a row of `Questions.SQL.columns`, by name.
    init(row: any StoreRow) throws {
        let optionsText = try row.text("options")
        guard case .array(let values)? = try? JSONParser.parse(Array(optionsText.utf8)) else {
            throw StoreError.failure("the result column options is not a JSON array")
        }
        self.init(
            id: try row.text("id"), accountID: try row.text("account_id"), keyID: try row.text("key_id"),
            taskID: try row.optionalText("task_id"), prompt: try row.text("prompt"),
            kind: try Self.decode(Kind.self, try row.text("kind"), row),
            options: values.compactMap(\.stringValue), status: try Self.decode(Status.self, try row.text("status"), row),
            answer: try row.optionalText("answer"), createdAt: try row.int64("created_at"),
            answeredAt: try row.optionalInt64("answered_at"), expiresAt: try row.int64("expires_at"))
    }

    private static func decode<Value: RawRepresentable<String>>(_ type: Value.Type, _ text: String, _ row: any StoreRow) throws -> Value {
        guard let value = Value(rawValue: text) else {
            throw StoreError.failure("the result holds an unknown \(Value.self) \(text)")
        }
        return value
    }
}

extension Questions {
    enum SQL {
        static let columns = """
            q.id AS id, q.account_id AS account_id, q.key_id AS key_id, q.task_id AS task_id, q.prompt AS prompt, \
            q.kind AS kind, q.options AS options, q.status AS status, q.answer AS answer, q.created_at AS created_at, \
            q.answered_at AS answered_at, q.expires_at AS expires_at
            """
        /// Questions of live keys only: a deleted key's questions are gone at once.
        static let live = "JOIN keys k ON k.id = q.key_id AND k.deleted_at IS NULL"
        static let get = "SELECT \(columns) FROM questions q \(live) WHERE q.id = $1"
        /// The questions of key $1 with a status of the JSON array $2, newest first, $3 at most.
        static func listForKey(_ dialect: StoreDialect) -> String {
            dialect == .sqlite ? listForKeySQLite : listForKeyPostgres
        }
        /// The same for the keys of account $1.
        static func listForAccount(_ dialect: StoreDialect) -> String {
            dialect == .sqlite ? listForAccountSQLite : listForAccountPostgres
        }
        private static let listForKeySQLite = list(owner: "q.key_id", .sqlite)
        private static let listForKeyPostgres = list(owner: "q.key_id", .postgres)
        private static let listForAccountSQLite = list(owner: "q.account_id", .sqlite)
        private static let listForAccountPostgres = list(owner: "q.account_id", .postgres)
        /// The texts of the JSON array $2, one a row: SQLite's `json_each` gives an array's
        /// elements in `value`, PostgreSQL's `json_array_elements_text` does (its `json_each`
        /// takes only an object).
        private static func list(owner: String, _ dialect: StoreDialect) -> String {
            let statuses = switch dialect {
            case .sqlite: "SELECT value FROM json_each($2)"
            case .postgres: "SELECT value FROM json_array_elements_text($2::json)"
            }
            return """
                SELECT \(columns) FROM questions q \(live) WHERE \(owner) = $1 \
                AND q.status IN (\(statuses)) ORDER BY q.created_at DESC, q.id DESC LIMIT $3
                """
        }
        static let taskOfKey = "SELECT 1 FROM tasks WHERE id = $1 AND key_id = $2"
        static let countPending = "SELECT count(*) AS n FROM questions WHERE key_id = $1 AND status = 'pending'"
        static let insert = """
            INSERT INTO questions (id, account_id, key_id, task_id, prompt, kind, options, status, created_at, expires_at) \
            VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9)
            """
        static let answer = """
            UPDATE questions SET status = 'answered', answer = $1, answered_at = $2, closed_at = $3 \
            WHERE id = $4 AND status = 'pending'
            """
        static let cancel = "UPDATE questions SET status = 'cancelled', closed_at = $1 WHERE id = $2 AND status = 'pending'"
        static let expire = "UPDATE questions SET status = 'expired', closed_at = $1 WHERE id = $2 AND status = 'pending'"
        static let dueAccounts = "SELECT DISTINCT account_id FROM questions WHERE status = 'pending' AND expires_at <= $1"
        static let dueOfAccount = """
            SELECT id FROM questions WHERE status = 'pending' AND expires_at <= $1 AND account_id = $2 ORDER BY expires_at
            """
        static let dueOfKey = """
            SELECT id FROM questions WHERE status = 'pending' AND expires_at <= $1 AND key_id = $2 ORDER BY expires_at
            """
        static let pendingOfTask = "SELECT id FROM questions WHERE task_id = $1 AND status = 'pending'"
        static let nextExpiry = "SELECT min(expires_at) AS at FROM questions WHERE status = 'pending'"
    }
}
