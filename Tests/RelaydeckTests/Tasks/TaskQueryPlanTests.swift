@testable import Relaydeck
import SQLite
import Testing

/// Every statement of the server that reads `tasks` keeps an index (issue 20: "every query of
/// the contract keeps an index" when the schema changes): the plan SQLite makes for it, with no
/// statistics (the server never runs ANALYZE), names the index, and the ordered reads walk it
/// instead of sorting the rows they find.
@Suite struct TaskQueryPlanTests {
    /// (the statement, the index its plan must use on `tasks`, whether it may sort in a
    /// temporary B-tree).
    static let plans: [(name: String, sql: String, index: String, sorts: Bool)] = [
        ("a task by ID", TaskSQL.get, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a task by ID for a change", TaskSQL.getForChange, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a key's task by ID", TaskSQL.getOfKey, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a key's task by ID for a change", TaskSQL.getOfKeyForChange, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a key's list", TaskSQL.unchanged(byKey: true, .sqlite), "tasks_by_key (key_id=?", false),
        ("an account's list", TaskSQL.unchanged(byKey: false, .sqlite), "tasks_by_account (account_id=?", false),
        // The tasks moved since the snapshot are few (the changes of the paging's minutes):
        // they are sorted, within the account's range of `tasks_changed`.
        ("the tasks moved since a snapshot", TaskSQL.moved(.sqlite), "tasks_changed (account_id=? AND changed_seq>?)", true),
        // From the key's oldest task: at most its 1,000 open ones come before a closed one.
        ("the closed-task cap's oldest", TaskSQL.oldestClosed, "tasks_by_key (key_id=?)", false),
        ("retention's accounts of expired tasks", Retention.SQL.accountsWithExpiredTasks, "tasks_expiring (updated_at<?)", false),
        ("retention's expired tasks of an account", Retention.SQL.expiredTasks(.sqlite),
         "tasks_by_account (account_id=? AND updated_at<?)", false),
        ("the update", TaskSQL.update, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("the deletion", TaskSQL.delete, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("seen", TaskSQL.markSeen, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a question's task", Questions.SQL.taskOfKey, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a Live Activity's task", LiveActivities.SQL.taskOfAccount, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("a push's task", OutboxSQL.task, "sqlite_autoindex_tasks_1 (id=?)", false),
        ("the purge of a deleted key's tasks", Purger.SQL.ownedByDeletedKeys("tasks"), "tasks_by_key (key_id=?)", false),
    ]

    @Test(arguments: plans.indices)
    func everyReadOfTasksKeepsItsIndex(index: Int) throws {
        let (name, sql, expected, sorts) = Self.plans[index]
        let test = try TestStore(.memory)
        let plan = try test.store.read { db in
            let statement = try db.prepare("EXPLAIN QUERY PLAN " + sql)
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3) ?? "") }
            return details
        }
        let onTasks = plan.filter { $0.contains(" tasks ") || $0.contains(" t ") || $0.hasSuffix(" t") }
        #expect(onTasks.contains { $0.contains("USING INDEX \(expected)") || $0.contains("USING COVERING INDEX \(expected)") },
                "\(name): \(plan)")
        #expect(!onTasks.contains { $0.hasPrefix("SCAN") && !$0.contains("INDEX") }, "\(name) scans tasks: \(plan)")
        if !sorts {
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(name) sorts: \(plan)")
        }
    }
}
