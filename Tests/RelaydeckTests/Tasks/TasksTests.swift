import Clock
@testable import Relaydeck
import Testing

/// `rest-api.md#tasks`: the service on a manual clock.
@Suite struct TasksTests {
    let test: TestStore
    let account: Account
    let key: Key
    let agent: Principal
    let person: Principal

    init() async throws {
        test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        self.account = account
        key = keys[0].key
        agent = test.agent(key)
        person = .account(accountID: account.id)
    }

    func new(_ title: String = "Write tests") -> NewTask {
        NewTask(title: checked(title, .taskTitle))
    }

    @Test func anAgentsTaskHasTheDefaultsItsHostAndIsSeenAtOnce() async throws {
        test.clock.wallMillis = 1_760_112_000_412
        let task = try await test.tasks.create(agent, keyID: nil, new(), host: "studio-mac")
        #expect(task == WorkTask(
            id: task.id, accountID: account.id, keyID: key.id, title: "Write tests", description: "", status: .todo,
            priority: .medium, notify: true, progress: nil, statusNote: nil, source: .agent,
            createdAt: 1_760_112_000_412, updatedAt: 1_760_112_000_412, completedAt: nil, seenAt: 1_760_112_000_412,
            host: "studio-mac"))
        #expect(Identifier.isWellFormed(Substring(task.id), prefix: "tsk_"))
        #expect(try await test.tasks.get(person, taskID: task.id) == task)
        #expect(test.changes.last == Change(accountID: account.id, event: .taskCreated(task), actor: .key(key.id)))
    }

    @Test func aPersonsTaskIsFromTheAppUnseenAndHasNoHost() async throws {
        let task = try await test.tasks.create(person, keyID: key.id, new(), host: "ignored")
        #expect(task.source == .app && task.seenAt == nil && task.host == nil)
        // The key hears of it in its inbox (`inbox.md#inbox-item`).
        #expect(test.changes.suffix(2) == [
            Change(accountID: account.id, event: .taskCreated(task), actor: .account),
            Change(accountID: account.id, event: .inboxUpdated(keyID: key.id, unread: 1), actor: .account),
        ])
    }

    @Test func theAccountNeedsAKeyOfItsOwn() async throws {
        let (_, _, theirs) = try await test.account(withKeys: 1)
        await #expect(throws: DomainError.notFound("Key not found.")) {
            try await test.tasks.create(person, keyID: theirs[0].key.id, new(), host: nil)
        }
    }

    @Test func doneSetsProgressAndCompletedAtAndLeavingDoneClearsIt() async throws {
        let task = try await test.tasks.create(agent, keyID: nil, new(), host: nil)
        test.clock.advance(millis: 5_000)
        let done = try await test.tasks.update(agent, taskID: task.id, TaskPatch(status: .done, progress: .some(40)))
        #expect(done.progress == 100 && done.completedAt == task.createdAt + 5_000 && done.updatedAt == done.completedAt)
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).counts == Key.Counts(done: 1))
        let reopened = try await test.tasks.update(person, taskID: task.id, TaskPatch(status: .inProgress, progress: .some(nil)))
        #expect(reopened.completedAt == nil && reopened.progress == nil && reopened.status == .inProgress)
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).counts == Key.Counts(inProgress: 1))
    }

    @Test func anEmptyStatusNoteIsStoredAsNull() async throws {
        let task = try await test.tasks.create(agent, keyID: nil, new(), host: nil)
        let noted = try await test.tasks.update(agent, taskID: task.id, TaskPatch(statusNote: .some(checked("  Reading  the code ", .statusNote))))
        #expect(noted.statusNote == "Reading the code")
        let cleared = try await test.tasks.update(agent, taskID: task.id, TaskPatch(statusNote: .some(checked(" ", .statusNote))))
        #expect(cleared.statusNote == nil)
    }

    @Test func aPatchThatChangesNothingKeepsUpdatedAtAndSendsNoEvent() async throws {
        let task = try await test.tasks.create(agent, keyID: nil, new(), host: nil)
        let before = test.changes.count
        test.clock.advance(millis: 9_000)
        let same = try await test.tasks.update(agent, taskID: task.id, TaskPatch(
            title: checked("Write  tests", .taskTitle), status: .todo, priority: .medium, notify: true, progress: .some(nil)))
        #expect(same == task)
        #expect(test.changes.count == before)
        #expect(try await test.tasks.get(agent, taskID: task.id).updatedAt == task.updatedAt)
    }

    @Test func aKeySeesOnlyItsOwnTasksAndTheAccountOnlyThoseOfLiveKeys() async throws {
        let other = try await test.keys.create(accountID: account.id, label: checked("other")).key
        let otherAgent = test.agent(other)
        let mine = try await test.tasks.create(agent, keyID: nil, new("mine"), host: nil)
        test.clock.advance(millis: 1)
        let theirs = try await test.tasks.create(otherAgent, keyID: nil, new("theirs"), host: nil)
        let notFound = DomainError.notFound("Task not found.")
        await #expect(throws: notFound) { try await test.tasks.get(agent, taskID: theirs.id) }
        await #expect(throws: notFound) { try await test.tasks.update(agent, taskID: theirs.id, TaskPatch(notify: false)) }
        await #expect(throws: notFound) { try await test.tasks.delete(agent, taskID: theirs.id) }
        #expect(try await test.tasks.list(agent, TaskFilter(), after: nil).tasks.map(\.id) == [mine.id])
        #expect(try await test.tasks.list(person, TaskFilter(), after: nil).tasks.map(\.id) == [theirs.id, mine.id])
        try await test.keys.delete(accountID: account.id, keyID: other.id)
        #expect(try await test.tasks.list(person, TaskFilter(), after: nil).tasks.map(\.id) == [mine.id])
        await #expect(throws: notFound) { try await test.tasks.get(person, taskID: theirs.id) }
        let stranger = Principal.account(accountID: try await test.accounts.create().account.id)
        await #expect(throws: notFound) { try await test.tasks.get(stranger, taskID: mine.id) }
        #expect(try await test.tasks.list(stranger, TaskFilter(), after: nil).tasks.isEmpty)
    }

    @Test func deleteRemovesTheTaskItsCountAndAnnouncesIt() async throws {
        let task = try await test.tasks.create(agent, keyID: nil, new(), host: nil)
        try await test.tasks.delete(person, taskID: task.id)
        #expect(test.changes.suffix(2) == [
            Change(accountID: account.id, event: .taskDeleted(taskID: task.id, keyID: key.id), actor: .account),
            Change(accountID: account.id, event: .inboxUpdated(keyID: key.id, unread: 1), actor: .account),
        ])
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).counts == Key.Counts())
        await #expect(throws: DomainError.notFound("Task not found.")) { try await test.tasks.get(agent, taskID: task.id) }
    }

    @Test func theListFiltersByStatusAndPriority() async throws {
        let a = try await test.tasks.create(agent, keyID: nil, NewTask(title: checked("a", .taskTitle), priority: .high), host: nil)
        test.clock.advance(millis: 1)
        let b = try await test.tasks.create(agent, keyID: nil, NewTask(title: checked("b", .taskTitle), status: .done), host: nil)
        test.clock.advance(millis: 1)
        let c = try await test.tasks.create(agent, keyID: nil, NewTask(title: checked("c", .taskTitle), status: .inProgress, priority: .urgent), host: nil)
        func ids(_ filter: TaskFilter) async throws -> [String] { try await test.tasks.list(person, filter, after: nil).tasks.map(\.id) }
        #expect(try await ids(TaskFilter(statuses: [.todo, .inProgress])) == [c.id, a.id])
        #expect(try await ids(TaskFilter(priorities: [.medium])) == [b.id])
        #expect(try await ids(TaskFilter(statuses: [.inProgress], priorities: [.high])) == [])
        #expect(try await ids(TaskFilter(keyID: key.id)) == [c.id, b.id, a.id])
    }
}
