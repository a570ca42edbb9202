import Clock
@testable import Relaydeck
import Testing

/// `rest-api.md#list-tasks`: the cursor visits every task exactly once while tasks change.
@Suite struct TaskCursorTests {
    /// A store with an account of `keys` keys, and the account's principal.
    static func store(keys count: Int) async throws -> (TestStore, Principal, [(key: Key, secret: Secret)]) {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: count)
        return (test, .account(accountID: account.id), keys)
    }

    @Test func everySurvivingTaskIsSeenExactlyOnceWhileTasksChangeBetweenPages() async throws {
        let (test, person, keys) = try await Self.store(keys: 2)
        var ids: [String] = []
        for index in 0..<40 {
            let keyID = keys[index % 2].key.id
            ids.append(try await test.tasks.create(person, keyID: keyID, NewTask(title: checked("task \(index)", .taskTitle)), host: nil).id)
            // Some share a millisecond: the ID breaks the tie.
            if index % 3 == 0 { test.clock.advance(millis: 1) }
        }
        var seen: [String] = []
        var deleted: Set<String> = []
        var page = try await test.tasks.list(person, TaskFilter(limit: 7), after: nil)
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
                _ = try await test.tasks.update(person, taskID: first, TaskPatch(title: checked("moved \(turn)", .taskTitle)))
                _ = try await test.tasks.update(person, taskID: first, TaskPatch(priority: turn % 2 == 0 ? .low : .high))
            }
            if let last = unseen.last, unseen.count > 1 {
                try await test.tasks.delete(person, taskID: last)
                deleted.insert(last)
            }
            if let again = seen.first {
                _ = try await test.tasks.update(person, taskID: again, TaskPatch(notify: turn % 2 == 0))
            }
            _ = try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("new", .taskTitle)), host: nil)
            page = try await test.tasks.list(person, TaskFilter(limit: 7), after: next)
        }
        let surviving = ids.filter { !deleted.contains($0) }
        #expect(seen.count == Set(seen).count, "a task came twice")
        // Exactly the tasks that existed at the first page and still exist: the deleted ones
        // never came, the new ones wait for the next listing.
        #expect(Set(seen) == Set(surviving))
        #expect(!deleted.isEmpty && turn >= 5)
    }

    @Test func theFirstPageIsNewestFirstAndTheCursorRoundTrips() async throws {
        let (test, person, keys) = try await Self.store(keys: 1)
        var ids: [String] = []
        for index in 0..<3 {
            ids.append(try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t\(index)", .taskTitle)), host: nil).id)
            test.clock.advance(millis: 10)
        }
        let first = try await test.tasks.list(person, TaskFilter(limit: 2), after: nil)
        #expect(first.tasks.map(\.id) == [ids[2], ids[1]])
        let cursor = try #require(first.next)
        #expect(TaskCursor(text: cursor.text) == cursor)
        let second = try await test.tasks.list(person, TaskFilter(limit: 2), after: cursor)
        #expect(second.tasks.map(\.id) == [ids[0]] && second.next == nil)
        let exact = try await test.tasks.list(person, TaskFilter(limit: 3), after: nil)
        #expect(exact.tasks.count == 3 && exact.next == nil)
    }

    @Test func aCursorOlderThanADayHasExpired() async throws {
        let (test, person, keys) = try await Self.store(keys: 1)
        for _ in 0..<2 {
            _ = try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t", .taskTitle)), host: nil)
        }
        let cursor = try await #require(try test.tasks.list(person, TaskFilter(limit: 1), after: nil).next)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        await #expect(throws: DomainError.validation([FieldProblem("cursor", "The cursor has expired.")])) {
            try await test.tasks.list(person, TaskFilter(limit: 1), after: cursor)
        }
    }

    @Test func movesAreKeptForADayAndNoLonger() async throws {
        let (test, person, keys) = try await Self.store(keys: 1)
        let task = try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t", .taskTitle)), host: nil)
        let other = try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("o", .taskTitle)), host: nil)
        // Both were last changed before this process first moved a task: a cursor of an
        // earlier process may need their moves.
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(notify: false))
        _ = try await test.tasks.update(person, taskID: other.id, TaskPatch(notify: false))
        #expect(try test.rowCount("task_moves") == 2)
        test.clock.advance(by: .seconds(24 * 3600 + 1))
        _ = try await #require(try test.tasks.list(person, TaskFilter(limit: 1), after: nil).next)
        _ = try await test.tasks.update(person, taskID: task.id, TaskPatch(notify: true))
        #expect(try test.rowCount("task_moves") == 1)
        try await test.tasks.delete(person, taskID: task.id)
        #expect(try test.rowCount("task_moves") == 0)
    }

    /// `ListSnapshots`: a move is noted only when a cursor can need it; an agent's progress
    /// ticks with no list being paged write none.
    @Test func aMoveIsNotedOnlyWhenACursorCanNeedIt() async throws {
        let (test, person, keys) = try await Self.store(keys: 1)
        let agent = test.agent(keys[0].key)
        let ticking = try await test.tasks.create(agent, keyID: nil, NewTask(title: checked("ticking", .taskTitle)), host: nil)
        // The first move of the process: the task was last changed before it.
        _ = try await test.tasks.update(agent, taskID: ticking.id, TaskPatch(progress: .some(1)))
        #expect(try test.rowCount("task_moves") == 1)
        for progress in 2...5 {
            test.clock.advance(millis: 1)
            _ = try await test.tasks.update(agent, taskID: ticking.id, TaskPatch(progress: .some(progress)))
        }
        #expect(try test.rowCount("task_moves") == 1)

        // A page hands out a cursor: the next move of each task it can list is noted, once.
        let made = try await test.tasks.create(agent, keyID: nil, NewTask(title: checked("made", .taskTitle)), host: nil)
        test.clock.advance(millis: 1)
        let first = try await test.tasks.list(person, TaskFilter(limit: 1), after: nil)
        let cursor = try #require(first.next)
        #expect(first.tasks.map(\.id) == [made.id])
        for progress in 6...8 {
            test.clock.advance(millis: 1)
            _ = try await test.tasks.update(agent, taskID: ticking.id, TaskPatch(progress: .some(progress)))
        }
        #expect(try test.rowCount("task_moves") == 2)
        // The cursor places the moved task where it stood at the first page.
        let second = try await test.tasks.list(person, TaskFilter(limit: 1), after: cursor)
        #expect(second.tasks.map(\.id) == [ticking.id] && second.next == nil)

        // Another account's cursor is not this account's.
        let (stranger, _, strangerKeys) = try await test.account(withKeys: 1)
        let strangers = Principal.account(accountID: stranger.id)
        for index in 0..<2 {
            _ = try await test.tasks.create(strangers, keyID: strangerKeys[0].key.id,
                                      NewTask(title: checked("s\(index)", .taskTitle)), host: nil)
        }
        _ = try await #require(try test.tasks.list(strangers, TaskFilter(limit: 1), after: nil).next)
        test.clock.advance(millis: 1)
        _ = try await test.tasks.update(agent, taskID: made.id, TaskPatch(progress: .some(1)))
        _ = try await test.tasks.update(agent, taskID: made.id, TaskPatch(progress: .some(2)))
        // `made` existed at this account's snapshot: its first move after it is noted.
        #expect(try test.rowCount("task_moves") == 3)
        test.clock.advance(millis: 1)
        _ = try await test.tasks.update(agent, taskID: ticking.id, TaskPatch(progress: .some(9)))
        #expect(try test.rowCount("task_moves") == 3)
    }

    /// A cursor handed out by an earlier process (another `Tasks` over the same store) still
    /// visits every task once while the new process moves them.
    @Test func aCursorOfAnEarlierProcessStillSeesEveryTaskOnce() async throws {
        let (test, person, keys) = try await Self.store(keys: 1)
        var ids: [String] = []
        for index in 0..<12 {
            ids.append(try await test.tasks.create(person, keyID: keys[0].key.id, NewTask(title: checked("t\(index)", .taskTitle)),
                                             host: nil).id)
            test.clock.advance(millis: 1)
        }
        let first = try await test.tasks.list(person, TaskFilter(limit: 4), after: nil)
        var seen = first.tasks.map(\.id)
        var cursor = try #require(first.next)
        let restarted = Tasks(store: test.store, clock: test.clock, random: test.random, hub: test.hub, inbox: test.inbox)
        while true {
            test.clock.advance(millis: 1)
            // The oldest task not seen yet moves to the top, twice.
            if let unseen = ids.first(where: { !seen.contains($0) }) {
                _ = try await restarted.update(person, taskID: unseen, TaskPatch(progress: .some(10)))
                _ = try await restarted.update(person, taskID: unseen, TaskPatch(progress: .some(20)))
            }
            let page = try await restarted.list(person, TaskFilter(limit: 4), after: cursor)
            seen += page.tasks.map(\.id)
            guard let next = page.next else { break }
            cursor = next
        }
        #expect(seen.count == ids.count && Set(seen) == Set(ids))
    }

    @Test(arguments: ["", "abc", "MS4yLjMudHNrX3g", "!!!!", "LTEuMi4zLnRza18wMTIzNDU2Nzg5YWJjZGVmZ2hqa21ucHFyc3Q"])
    func aCursorTheServerDidNotWriteIsRefused(text: String) {
        #expect(TaskCursor(text: text) == nil)
    }
}
