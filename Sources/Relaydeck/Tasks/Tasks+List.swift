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
            let keyID = principal.keyID ?? filter.keyID
            let values: [SQLiteValue] = [
                .integer(snapshot), .text(principal.accountID), keyID.map { .text($0) } ?? .null,
                TaskFilter.commaList(filter.statuses?.map(\.rawValue)).map { .text($0) } ?? .null,
                TaskFilter.commaList(filter.priorities?.map(\.rawValue)).map { .text($0) } ?? .null,
                // The first page starts above every task.
                .integer(cursor?.sortAt ?? Int64.max), .text(cursor?.taskID ?? ""),
                // One row past the page says whether a next page exists.
                .integer(Int64(filter.limit + 1)),
            ]
            let decode = { (row: Row) throws in (task: try WorkTask(row: row), sortAt: try row.int64("sort_at")) }
            let unchanged = try db.rows(TaskSQL.unchanged(byKey: keyID != nil), values, decode)
            let moved = try db.rows(TaskSQL.moved, values, decode)
            let rows = (unchanged + moved).sorted { ($0.sortAt, $0.task.id) > ($1.sortAt, $1.task.id) }.prefix(filter.limit + 1)
            let page = rows.prefix(filter.limit)
            guard rows.count > filter.limit, let last = page.last else { return (page.map(\.task), nil) }
            return (page.map(\.task), TaskCursor(snapshot: snapshot, issuedAt: cursor?.issuedAt ?? now,
                                                 sortAt: last.sortAt, taskID: last.task.id))
        }
    }
}
