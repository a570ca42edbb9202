import Clock
@testable import Relaydeck
import Testing

/// `rest-api.md#list-tasks`: the cursor visits every task exactly once while tasks change.
@Suite struct TaskCursorTests {
    /// A store with an account of `keys` keys, and the account's principal.
    static func store(keys count: Int) throws -> (TestStore, Principal, [(key: Key, secret: Secret)]) {
        let test = try TestStore(.memory)
        let (account, _, keys) = try test.account(withKeys: count)
        return (test, .account(accountID: account.id), keys)
    }

    @Test func everySurvivingTaskIsSeenExactlyOnceWhileTasksChangeBetweenPages() throws {
        let (test, person, keys) = try Self.store(keys: 2)
        var ids: [String] = []
        for index in 0..<40 {
            let keyID = keys[index % 2].key.id
            ids.append(try test.tasks.create(person, keyID: keyID, NewTask(title: checked("task \(index)", .taskTitle)), host: nil).id)
            // Some share a millisecond: the ID breaks the tie.
            if index % 3 == 0 { test.clock.advance(millis: 1) }
        }
        var seen: [String] = []
        var deleted: Set<String> = []
        var page = try test.tasks.list(person, TaskFilter(limit: 7), after: nil)
        var turn = 0
        while true {
            seen += page.tasks.map(\.id)
            guard let next = page.next else { break }
            turn += 1
            test.clock.advance(millis: 1)
            // Move a task not seen yet to the top, move a seen one again, delete an unseen
            // one, and make a new one: none of it may repeat or hide a task.
            let unseen = ids.filter { !seen.contains($0) && !deleted.contains($0) }
            if let first = unseen.first {
                _ = try test.tasks.update(person, taskID: first, TaskPatch(title: checked("moved \(turn)", .taskTitle)))
                _ = try test.tasks.update(person, taskID: first, TaskPatch(priority: turn % 2 == 0 ? .low : .high))
            }
            if let last = unseen.last, unseen.count > 1 {
                try test.tasks.delete(person, taskID: last)
                deleted.insert(last)
            }
            if let again = seen.first {
                _ = try test.tasks.update(person, taskID: again, TaskPatch(notify: turn % 2 == 0))
            }
            _ = try test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("new", .taskTitle)), host: nil)
            page = try test.tasks.list(person, TaskFilter(limit: 7), after: next)
        }
        let surviving = ids.filter { !deleted.contains($0) }
        #expect(seen.count == Set(seen).count, "a task came twice")
        // Exactly the tasks that existed at the first page and still exist: the deleted ones
        // never came, the new ones wait for the next listing.
        #expect(Set(seen) == Set(surviving))
        #expect(!deleted.isEmpty && turn >= 5)
    }

    @Test func theFirstPageIsNewestFirstAndTheCursorRoundTrips() throws {
        let (test, person, keys) = try Self.store(keys: 1)
        var ids: [String] = []
        for index in 0..<3 {
            ids.append(try test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t\(index)", .taskTitle)), host: nil).id)
            test.clock.advance(millis: 10)
        }
        let first = try test.tasks.list(person, TaskFilter(limit: 2), after: nil)
        #expect(first.tasks.map(\.id) == [ids[2], ids[1]])
        let cursor = try #require(first.next)
        #expect(TaskCursor(text: cursor.text) == cursor)
        let second = try test.tasks.list(person, TaskFilter(limit: 2), after: cursor)
        #expect(second.tasks.map(\.id) == [ids[0]] && second.next == nil)
        let exact = try test.tasks.list(person, TaskFilter(limit: 3), after: nil)
        #expect(exact.tasks.count == 3 && exact.next == nil)
    }

    @Test func aCursorOlderThanADayHasExpired() throws {
        let (test, person, keys) = try Self.store(keys: 1)
        for _ in 0..<2 {
            _ = try test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t", .taskTitle)), host: nil)
        }
        let cursor = try #require(try test.tasks.list(person, TaskFilter(limit: 1), after: nil).next)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(throws: DomainError.validation([FieldProblem("cursor", "The cursor has expired.")])) {
            try test.tasks.list(person, TaskFilter(limit: 1), after: cursor)
        }
    }

    @Test func movesAreKeptForADayAndNoLonger() throws {
        let (test, person, keys) = try Self.store(keys: 1)
        let task = try test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t", .taskTitle)), host: nil)
        _ = try test.tasks.update(person, taskID: task.id, TaskPatch(notify: false))
        _ = try test.tasks.update(person, taskID: task.id, TaskPatch(notify: true))
        #expect(try test.rowCount("task_moves") == 2)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        _ = try test.tasks.update(person, taskID: task.id, TaskPatch(notify: false))
        #expect(try test.rowCount("task_moves") == 1)
        try test.tasks.delete(person, taskID: task.id)
        #expect(try test.rowCount("task_moves") == 0)
    }

    @Test(arguments: ["", "abc", "MS4yLjMudHNrX3g", "!!!!", "LTEuMi4zLnRza18wMTIzNDU2Nzg5YWJjZGVmZ2hqa21ucHFyc3Q"])
    func aCursorTheServerDidNotWriteIsRefused(text: String) {
        #expect(TaskCursor(text: text) == nil)
    }
}
