import Clock
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `GET /v1/tasks`' cursor on a real PostgreSQL database, as `TaskCursorTests` and
/// `TaskPageBudgetTests` check it on SQLite: every task that existed at the first page comes
/// once while tasks move, are deleted and made between pages, the moves are noted only when a
/// cursor can need them and kept a day, a cursor expires after a day, and a page ends at its
/// byte budget. The agents write (their writes leave no inbox line); the account lists.
@Suite struct TaskCursorOnPostgresTests {
    typealias Domain = TasksOnPostgresTests.Domain

    @Test func everySurvivingTaskComesExactlyOnceWhileTasksChangeBetweenPagesOnPostgreSQL() throws {
        let test = try Domain()
        var owner: [String: Principal] = [:]
        var ids: [String] = []
        for index in 0..<40 {
            let agent = test.agent(index % 2)
            let id = try test.make(agent, "task \(index)").id
            ids.append(id)
            owner[id] = agent
            // Some share a millisecond: the ID breaks the tie.
            if index % 3 == 0 { test.clock.advance(millis: 1) }
        }
        var seen: [String] = []
        var deleted: Set<String> = []
        var page = try test.list(test.person, TaskFilter(limit: 7))
        var turn = 0
        while true {
            seen += page.tasks.map(\.id)
            guard let next = page.next else { break }
            turn += 1
            test.clock.advance(millis: 1)
            // Move a task not seen yet to the top, twice; move a seen one again; delete an
            // unseen one; make a new one: none of it may repeat or hide a task.
            let unseen = ids.filter { !seen.contains($0) && !deleted.contains($0) }
            if let first = unseen.first, let agent = owner[first] {
                _ = try test.update(agent, first, TaskPatch(title: Domain.checked("moved \(turn)", .taskTitle)))
                _ = try test.update(agent, first, TaskPatch(priority: turn % 2 == 0 ? .low : .high))
            }
            if let last = unseen.last, unseen.count > 1, let agent = owner[last] {
                try test.run { try await test.tasks.delete(agent, taskID: last) }
                deleted.insert(last)
            }
            if let again = seen.first, let agent = owner[again] {
                _ = try test.update(agent, again, TaskPatch(notify: turn % 2 == 0))
            }
            try test.make(test.agent(), "new")
            page = try test.list(test.person, TaskFilter(limit: 7), after: next)
        }
        #expect(seen.count == Set(seen).count, "a task came twice")
        #expect(Set(seen) == Set(ids.filter { !deleted.contains($0) }))
        #expect(!deleted.isEmpty && turn >= 5)
    }

    @Test func theFirstPageIsNewestFirstAndAnExpiredCursorIsRefusedOnPostgreSQL() throws {
        let test = try Domain()
        var ids: [String] = []
        for index in 0..<3 {
            ids.append(try test.make(test.agent(), "t\(index)").id)
            test.clock.advance(millis: 10)
        }
        let first = try test.list(test.person, TaskFilter(limit: 2))
        #expect(first.tasks.map(\.id) == [ids[2], ids[1]])
        let cursor = try #require(first.next)
        let second = try test.list(test.person, TaskFilter(limit: 2), after: cursor)
        #expect(second.tasks.map(\.id) == [ids[0]] && second.next == nil)
        let exact = try test.list(test.agent(), TaskFilter(limit: 3))
        #expect(exact.tasks.count == 3 && exact.next == nil)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(throws: DomainError.validation([FieldProblem("cursor", "The cursor has expired.")])) {
            try test.list(test.person, TaskFilter(limit: 2), after: cursor)
        }
    }

    /// Another node may have handed out the cursor a move is needed for, and this node cannot
    /// know (`ListSnapshots` is in each process's memory): with PostgreSQL every move is
    /// noted, and the notes older than a day go with the next one written.
    @Test func everyMoveIsNotedAndKeptADayOnPostgreSQL() throws {
        let test = try Domain()
        let agent = test.agent()
        func moves() throws -> Int64 { try test.count("SELECT count(*) AS n FROM task_moves WHERE task_id LIKE 'tsk_%' AND seq > 42") }
        let ticking = try test.make(agent, "ticking")
        for progress in 1...4 {
            test.clock.advance(millis: 1)
            _ = try test.update(agent, ticking.id, TaskPatch(progress: .some(progress)))
        }
        #expect(try moves() == 4)
        let made = try test.make(agent, "made")
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        _ = try test.update(agent, made.id, TaskPatch(progress: .some(1)))
        #expect(try moves() == 1)
        try test.run { try await test.tasks.delete(agent, taskID: made.id) }
        #expect(try moves() == 0)
    }

    /// A cursor handed out by node A, a task moved on node B (its own `Tasks`, on its own
    /// connections, which never listed): the next page on A still places the task where it
    /// stood at the first page, so it comes once. Without the move noted on B it was missing.
    @Test func aCursorOfOneNodeFindsATaskMovedOnAnotherWhereItStoodOnPostgreSQL() throws {
        let test = try Domain()
        let agent = test.agent()
        let nodeB = Tasks(store: try test.db.driver.sessionStore(test.db.database), clock: test.clock, random: test.random,
                          hub: EventHub(), inbox: test.inbox)
        // B has moved a task already: the tasks made after it are past what B's process
        // knew of earlier cursors (`ListSnapshots`' floor).
        let earlier = try test.make(agent, "earlier")
        _ = try test.run { try await nodeB.update(agent, taskID: earlier.id, TaskPatch(progress: .some(1))) }
        var ids: [String] = []
        for index in 0..<6 {
            test.clock.advance(millis: 1)
            ids.append(try test.make(agent, "task \(index)").id)
        }
        let first = try test.list(test.person, TaskFilter(limit: 3))
        let cursor = try #require(first.next)
        #expect(first.tasks.map(\.id) == Array(ids.reversed().prefix(3)))
        let rest = try test.list(test.person, TaskFilter(limit: 10), after: cursor)
        // The first page's tasks stay seen; one on the next page moves to the top, on B.
        test.clock.advance(millis: 1)
        _ = try test.run { try await nodeB.update(agent, taskID: ids[1], TaskPatch(progress: .some(50))) }
        let second = try test.list(test.person, TaskFilter(limit: 10), after: cursor)
        #expect(second.tasks.map(\.id) == rest.tasks.map(\.id), "the move changed what the cursor lists")
        let seen = first.tasks.map(\.id) + second.tasks.map(\.id)
        #expect(seen.count == Set(seen).count, "a task came twice")
        #expect(Set(seen) == Set(ids + [earlier.id]))
    }

    @Test func aPageEndsAtItsByteBudgetAndATaskLargerThanItHasAPageOfItsOwnOnPostgreSQL() throws {
        let test = try Domain()
        var ids: [String] = []
        for index in 0..<9 {
            ids.append(try test.make(test.agent(), "t\(index)", description: String(repeating: "d", count: 3_000)).id)
            test.clock.advance(millis: 1)
        }
        let huge = try test.make(test.agent(), "huge", description: String(repeating: "h", count: 15_000))
        let filter = TaskFilter(limit: 500, byteBudget: 10_000)
        var pages: [[WorkTask]] = []
        var cursor: TaskCursor?
        repeat {
            let (page, next) = try test.list(test.person, filter, after: cursor)
            pages.append(page)
            cursor = next
            // Every task not listed yet moves: the cursor keeps it where it stood.
            for id in ids where !pages.joined().contains(where: { $0.id == id }) {
                _ = try test.update(test.agent(), id, TaskPatch(priority: .high))
            }
        } while cursor != nil
        #expect(pages.first?.map(\.id) == [huge.id])
        // 3,400 bytes a task: two fit in 10,000, the third would pass it.
        #expect(pages.dropFirst().map(\.count) == [2, 2, 2, 2, 1])
        #expect(pages.joined().map(\.id) == [huge.id] + ids.reversed())
    }

    /// A PostgreSQL answer comes whole, so its reads of a page stop at the byte budget in the
    /// SQL (`TaskSQL.byteCut`), where SQLite's step stops by itself: both reads give the rows
    /// up to the one that passes the budget, and never fewer than two.
    @Test func thePagesReadsReturnOnlyTheRowsUpToTheOneThatPassesTheByteBudgetOnPostgreSQL() throws {
        let test = try Domain()
        for index in 0..<20 {
            try test.make(test.agent(), "t\(index)", description: String(repeating: "d", count: 3_000))
            test.clock.advance(millis: 1)
        }
        func rows(_ sql: String, budget: Int) throws -> Int {
            try test.run {
                try await test.db.store.reading { db in
                    let snapshot = try await Tasks.currentSeq(db)
                    let values: [SQLiteValue] = [.integer(snapshot), .text(test.account.id), .null, .null, .null,
                                                 .integer(Int64.max), .text(""), .integer(501), .integer(Int64(budget))]
                    return try await db.rows(sql, values) { try $0.text("id") }.count
                }
            }
        }
        let unchanged = TaskSQL.unchanged(byKey: false, .postgres)
        // 3,402 bytes a task: the third passes 10,000.
        #expect(try rows(unchanged, budget: 10_000) == 3)
        #expect(try rows(unchanged, budget: 10) == 2)
        #expect(try rows(unchanged, budget: 100_000) == 20)
        // The tasks changed since a snapshot are read by the other query, cut the same way.
        let snapshot = try test.run { try await test.db.store.reading { try await Tasks.currentSeq($0) } }
        let listed = try test.list(test.person, TaskFilter(limit: 1)).tasks
        #expect(listed.count == 1)
        for task in try test.list(test.person, TaskFilter(limit: 100, byteBudget: 1_000_000)).tasks {
            _ = try test.update(test.agent(), task.id, TaskPatch(priority: .high))
        }
        let moved = try test.run {
            try await test.db.store.reading { db in
                let values: [SQLiteValue] = [.integer(snapshot), .text(test.account.id), .null, .null, .null,
                                             .integer(Int64.max), .text(""), .integer(501), .integer(10_000)]
                return try await db.rows(TaskSQL.moved(.postgres), values) { try $0.text("id") }.count
            }
        }
        #expect(moved == 3)
    }
}
