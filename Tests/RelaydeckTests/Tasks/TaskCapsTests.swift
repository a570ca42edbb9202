import Clock
@testable import Relaydeck
import Testing

/// `overview.md#limits`: 1,000 open and 5,000 closed tasks per key.
@Suite struct TaskCapsTests {
    @Test func theThousandAndFirstOpenTaskIsAConflictAndReopeningCountsToo() async throws {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let agent = test.agent(keys[0].key)
        let title = checked("open", .taskTitle)
        for _ in 0..<Tasks.maxOpenPerKey - 1 {
            _ = try await test.tasks.create(agent, keyID: nil, NewTask(title: title), host: nil)
        }
        let closed = try await test.tasks.create(agent, keyID: nil, NewTask(title: title, status: .cancelled), host: nil)
        _ = try await test.tasks.create(agent, keyID: nil, NewTask(title: title, status: .inProgress), host: nil)
        let full = DomainError.conflict("A key can have 1,000 open tasks.")
        await #expect(throws: full) { try await test.tasks.create(agent, keyID: nil, NewTask(title: title), host: nil) }
        await #expect(throws: full) { try await test.tasks.update(agent, taskID: closed.id, TaskPatch(status: .todo)) }
        #expect(try await test.keys.get(accountID: account.id, keyID: keys[0].key.id).counts
            == Key.Counts(todo: 999, inProgress: 1, done: 0, cancelled: 1))
        // A closed task can still be made.
        _ = try await test.tasks.create(agent, keyID: nil, NewTask(title: title, status: .done), host: nil)
    }

    @Test func oneMoreClosedTaskRemovesTheOldestClosedOne() async throws {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let keyID = keys[0].key.id
        let agent = test.agent(keys[0].key)
        let title = checked("closed", .taskTitle)
        var first: [String] = []
        for index in 0..<Tasks.maxClosedPerKey {
            let task = try await test.tasks.create(agent, keyID: nil, NewTask(title: title, status: index % 2 == 0 ? .done : .cancelled), host: nil)
            if index < 3 { first.append(task.id) }
            test.clock.advance(millis: 1)
        }
        // The oldest closed task was touched last: the second one goes first.
        _ = try await test.tasks.update(agent, taskID: first[0], TaskPatch(notify: false))
        test.clock.advance(millis: 1)
        let open = try await test.tasks.create(agent, keyID: nil, NewTask(title: title), host: nil)
        #expect(test.changes.last?.event == .taskCreated(try await test.tasks.get(agent, taskID: open.id)))
        _ = try await test.tasks.update(agent, taskID: open.id, TaskPatch(status: .done))
        #expect(test.changes.suffix(1) == [Change(accountID: account.id, event: .taskDeleted(taskID: first[1], keyID: keyID), actor: .server)])
        await #expect(throws: DomainError.notFound("Task not found.")) { try await test.tasks.get(agent, taskID: first[1]) }
        let made = try await test.tasks.create(agent, keyID: nil, NewTask(title: title, status: .cancelled), host: nil)
        #expect(test.changes.last == Change(accountID: account.id, event: .taskDeleted(taskID: first[2], keyID: keyID), actor: .server))
        #expect(try await test.tasks.get(agent, taskID: made.id).status == .cancelled)
        let counts = try await test.keys.get(accountID: account.id, keyID: keyID).counts
        #expect(counts.done + counts.cancelled == Tasks.maxClosedPerKey && counts.todo == 0)
        #expect(try test.rowCount("tasks", where: "key_id = '\(keyID)'") == Tasks.maxClosedPerKey)
    }
}
