import Clock
@testable import Relaydeck
import Testing

/// `overview.md#limits` on a real PostgreSQL database, as `TaskCapsTests` checks it on SQLite:
/// 1,000 open and 5,000 closed tasks per key. The caps read the key's counts, so the test
/// sets them near the cap instead of writing thousands of tasks.
@Suite struct TaskCapsOnPostgresTests {
    typealias Domain = TasksOnPostgresTests.Domain

    @Test func theThousandAndFirstOpenTaskIsAConflictAndReopeningCountsTooOnPostgreSQL() throws {
        let test = try Domain()
        let closed = try test.make(test.agent(), "closed", status: .cancelled)
        try test.execute("UPDATE keys SET todo_count = \(Tasks.maxOpenPerKey - 1) WHERE id = '\(test.keys[0].id)'")
        _ = try test.make(test.agent(), "the last open one", status: .inProgress)
        let before = test.published.count
        let tasks = try test.count("SELECT count(*) AS n FROM tasks")
        let full = DomainError.conflict("A key can have 1,000 open tasks.")
        #expect(throws: full) { try test.make(test.agent(), "one more") }
        #expect(throws: full) { try test.update(test.agent(), closed.id, TaskPatch(status: .todo)) }
        #expect(test.published.count == before)
        #expect(try test.count("SELECT count(*) AS n FROM tasks") == tasks)
        #expect(try test.get(test.agent(), closed.id) == closed)
        #expect(try test.counts() == "999 1 0 1")
        // A closed task can still be made, and another key has room of its own.
        _ = try test.make(test.agent(), "done", status: .done)
        _ = try test.make(test.agent(1), "elsewhere")
    }

    @Test func oneMoreClosedTaskRemovesTheOldestClosedOneOnPostgreSQL() throws {
        let test = try Domain()
        let keyID = test.keys[0].id
        let account = test.account.id
        var first: [WorkTask] = []
        for index in 0..<3 {
            first.append(try test.make(test.agent(), "closed \(index)", status: index % 2 == 0 ? .done : .cancelled))
            test.clock.advance(millis: 1)
        }
        // As if 4,997 more were closed before them.
        try test.execute("UPDATE keys SET done_count = done_count + \(Tasks.maxClosedPerKey - 3) WHERE id = '\(keyID)'")
        // The oldest closed task was touched last: the second one goes first.
        _ = try test.update(test.agent(), first[0].id, TaskPatch(notify: false))
        test.clock.advance(millis: 1)
        let open = try test.make(test.agent(), "open")
        #expect(test.published.last?.event == .taskCreated(open))
        let done = try test.update(test.agent(), open.id, TaskPatch(status: .done))
        #expect(test.published.suffix(2) == [
            Change(accountID: account, event: .taskUpdated(done), actor: .key(keyID), previous: open),
            Change(accountID: account, event: .taskDeleted(taskID: first[1].id, keyID: keyID), actor: .server),
        ])
        #expect(throws: TasksOnPostgresTests.notFound) { try test.get(test.agent(), first[1].id) }
        test.clock.advance(millis: 1)
        let made = try test.make(test.agent(), "made closed", status: .cancelled)
        #expect(test.published.last == Change(accountID: account, event: .taskDeleted(taskID: first[2].id, keyID: keyID), actor: .server))
        #expect(try test.get(test.agent(), made.id).status == .cancelled)
        #expect(try test.counts() == "0 0 \(Tasks.maxClosedPerKey - 1) 1")
        #expect(try test.list(test.agent()).tasks.map(\.id) == [made.id, open.id, first[0].id])
    }
}
