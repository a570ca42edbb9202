import Clock
import SQLite

extension Tasks {
    /// One page of `GET /v1/tasks`, newest `updated_at` first, and the cursor of the next page
    /// when more tasks follow (`rest-api.md#list-tasks`; how the cursor stays exact:
    /// `TaskCursor`). An expired cursor is a `422` on `cursor`.
    public func list(_ principal: Principal, _ filter: TaskFilter, after cursor: TaskCursor?) async throws
        -> (tasks: [WorkTask], next: TaskCursor?) {
        let now = clock.wallMillis
        if let cursor, now - cursor.issuedAt > TaskCursor.lifetimeMillis {
            throw DomainError.validation([FieldProblem("cursor", "The cursor has expired.")])
        }
        return try await store.reading { db in
            let snapshot: Int64
            if let cursor { snapshot = cursor.snapshot } else { snapshot = try await Self.currentSeq(db) }
            let keyID = principal.keyID ?? filter.keyID
            var values: [SQLiteValue] = [
                .integer(snapshot), .text(principal.accountID), keyID.map { .text($0) } ?? .null,
                TaskFilter.commaList(filter.statuses?.map(\.rawValue)).map { .text($0) } ?? .null,
                TaskFilter.commaList(filter.priorities?.map(\.rawValue)).map { .text($0) } ?? .null,
                // The first page starts above every task.
                .integer(cursor?.sortAt ?? Int64.max), .text(cursor?.taskID ?? ""),
                // One row past the page says whether a next page exists.
                .integer(Int64(filter.limit + 1)),
            ]
            // PostgreSQL's cut of the rows at the byte budget (`TaskSQL.byteCut`).
            if db.dialect == .postgres { values.append(.integer(Int64(filter.byteBudget))) }
            let decode = { (row: any StoreRow) throws in (task: try WorkTask(row: row), sortAt: try row.int64("sort_at")) }
            // Each query stops at the row that takes it past the byte budget (its second row at
            // the earliest, so that a first task larger than the budget is known to have a
            // follower): the merged page can hold no row after that one (its own query's rows
            // before it are some of the merged rows before it), and the row that ends the page
            // is always read, so "more follow" stays exact while no large value past the page
            // is read.
            var bytes = 0
            var count = 0
            let overBudget = { (row: (task: WorkTask, sortAt: Int64)) -> Bool in
                bytes += row.task.pageBytes
                count += 1
                return count > 1 && bytes > filter.byteBudget
            }
            let unchanged = try await db.rows(TaskSQL.unchanged(byKey: keyID != nil, db.dialect), values, through: overBudget, decode)
            (bytes, count) = (0, 0)
            let moved = try await db.rows(TaskSQL.moved(db.dialect), values, through: overBudget, decode)
            let rows = (unchanged + moved).sorted { ($0.sortAt, $0.task.id) > ($1.sortAt, $1.task.id) }.prefix(filter.limit + 1)
            let page = rows.prefix(Self.pageLength(rows.map(\.task), filter))
            guard rows.count > page.count, let last = page.last else { return (page.map(\.task), nil) }
            let issuedAt = cursor?.issuedAt ?? now
            snapshots.handedOut(accountID: principal.accountID, snapshot: snapshot, issuedAt: issuedAt)
            return (page.map(\.task), TaskCursor(snapshot: snapshot, issuedAt: issuedAt,
                                                 sortAt: last.sortAt, taskID: last.task.id))
        }
    }

    /// How many of `rows` (sorted, at most `limit + 1`) make the page: `limit`, or fewer when
    /// the byte budget ends it first; always at least one, so a task larger than the budget
    /// is listed too, on a page of its own.
    static func pageLength(_ rows: [WorkTask], _ filter: TaskFilter) -> Int {
        var bytes = 0
        for (index, task) in rows.prefix(filter.limit).enumerated() {
            bytes += task.pageBytes
            if bytes > filter.byteBudget { return max(index, 1) }
        }
        return min(rows.count, filter.limit)
    }
}
