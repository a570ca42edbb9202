import Clock
import SQLite

extension Tasks {
    /// One page of `GET /v1/tasks`, newest `updated_at` first, and the cursor of the next page
    /// when more tasks follow (`rest-api.md#list-tasks`; how the cursor stays exact:
    /// `TaskCursor`). An expired cursor is a `422` on `cursor`.
    public func list(_ principal: Principal, _ filter: TaskFilter, after cursor: TaskCursor?) throws
        -> (tasks: [WorkTask], next: TaskCursor?) {
        let now = clock.wallMillis
        if let cursor, now - cursor.issuedAt > TaskCursor.lifetimeMillis {
            throw DomainError.validation([FieldProblem("cursor", "The cursor has expired.")])
        }
        return try store.read { db in
            let snapshot = try cursor?.snapshot ?? Self.currentSeq(db)
            let statement = try db.statement(TaskSQL.list)
            defer { statement.reset() }
            let keyID = principal.keyID ?? filter.keyID
            try statement.bind([
                .integer(snapshot), .text(principal.accountID), keyID.map { .text($0) } ?? .null,
                TaskFilter.commaList(filter.statuses?.map(\.rawValue)).map { .text($0) } ?? .null,
                TaskFilter.commaList(filter.priorities?.map(\.rawValue)).map { .text($0) } ?? .null,
                .integer(Int64(filter.limit + 1)),
                cursor.map { .integer($0.sortAt) } ?? .null, cursor.map { .text($0.taskID) } ?? .null,
            ])
            var tasks: [WorkTask] = []
            var lastSortAt: Int64 = 0
            while let row = try statement.nextRow() {
                // One row past the page says whether a next page exists.
                guard tasks.count < filter.limit else {
                    return (tasks, TaskCursor(snapshot: snapshot, issuedAt: cursor?.issuedAt ?? now,
                                              sortAt: lastSortAt, taskID: tasks[tasks.count - 1].id))
                }
                tasks.append(try WorkTask(row: row))
                lastSortAt = try row.int64("sort_at")
            }
            return (tasks, nil)
        }
    }

    static func currentSeq(_ db: Database) throws -> Int64 {
        let statement = try db.statement(TaskSQL.currentSeq)
        defer { statement.reset() }
        guard let row = try statement.nextRow() else { throw SQLiteError(code: 20, message: "no change counter", sql: TaskSQL.currentSeq) }
        return try row.int64("seq")
    }
}
