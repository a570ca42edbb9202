import Clock
@testable import Relaydeck
import SQLite
import Testing

/// `UnitOfWork`: a change recorded in a write is planned in its transaction and published
/// after its COMMIT, in the order recorded; what rolls back (a savepoint, a failed COMMIT)
/// is neither published nor left planned.
@Suite struct UnitOfWorkTests {
    /// A planner that keeps every change it was asked to plan.
    final class RecordingPlanner: ChangePlanner {
        private(set) var planned: [Change] = []
        func plan(_ changes: [Change], in db: any StoreSession) async throws { planned += changes }
        func message(_ db: any StoreSession, accountID: String, keyID: String, title: String, body: String,
                     taskID: String?) async throws -> Int { 0 }
    }

    struct Boom: Error {}

    /// A store with the push planner on and a device with an APNs token, so a task written by
    /// an agent leaves a `push_jobs` row.
    final class Pushing {
        let test: TestStore
        let agent: Principal
        let key: Key

        init(_ kind: StoreKind) async throws {
            test = try TestStore(kind)
            let planner = PushPlanner(settings: PushSettings(bundleID: "com.example.deck", watchBundleID: nil),
                                      clock: test.clock)
            test.hub.planners = [planner]
            let (account, _, keys) = try await test.account(withKeys: 1)
            key = keys[0].key
            agent = test.agent(key)
            _ = try await Devices(store: test.store, clock: test.clock).register(
                accountID: account.id, deviceID: "dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", DeviceRegistration(
                    platform: .ios, model: checked("iPhone18,1", .deviceDescription),
                    osVersion: checked("27.0", .deviceDescription), appVersion: checked("1.0", .deviceDescription),
                    environment: .production, apnsToken: PushToken(String(repeating: "a1", count: 32))))
        }

        func task(_ title: String) async throws -> WorkTask {
            try await test.tasks.create(agent, keyID: nil, NewTask(title: checked(title, .taskTitle)), host: nil)
        }

        /// A table whose foreign key is checked only at COMMIT, and a trigger that breaks it
        /// when a task is titled `poison`: the COMMIT of a turn with such a task fails.
        func poisonCommits() throws {
            try test.store.write { db in
                try db.execute("""
                    CREATE TABLE parent(id INTEGER PRIMARY KEY);
                    CREATE TABLE child(parent REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                    CREATE TRIGGER poison AFTER INSERT ON tasks WHEN NEW.title = 'poison'
                    BEGIN INSERT INTO child VALUES (1); END;
                    """)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChangeRecordedInASavepointThatRollsBackIsNeitherPublishedNorPlanned(_ kind: StoreKind) async throws {
        let push = try await Pushing(kind)
        let before = push.test.changes.count
        var kept: WorkTask?
        try await push.test.store.writing { _ in
            kept = try await push.task("Kept")
            // A write that recorded its change (and planned its push), then failed.
            await #expect(throws: Boom.self) {
                try await push.test.store.writing(hub: push.test.hub) { _, _ in
                    _ = try await push.task("Undone")
                    #expect(try push.test.rowCount("push_jobs") == 2)
                    throw Boom()
                }
            }
            #expect(try push.test.rowCount("push_jobs") == 1)
        }
        let task = try #require(kept)
        #expect(Array(push.test.changes[before...]) == [Change(accountID: task.accountID, event: .taskCreated(task),
                                                               actor: .key(push.key.id))])
        #expect(try push.test.rowCount("tasks") == 1)
        #expect(try push.test.rowCount("push_jobs", where: "CAST(payload AS TEXT) LIKE '%\(task.id)%'") == 1)
        #expect(try push.test.rowCount("push_jobs") == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedCommitPublishesNothingAndLeavesNoOutboxRow(_ kind: StoreKind) async throws {
        let push = try await Pushing(kind)
        try push.poisonCommits()
        let before = push.test.changes.count
        let work = try #require(try push.test.store.tryBeginWork())
        _ = try await push.task("Ship it")
        _ = try await push.task("poison")
        #expect(try push.test.rowCount("push_jobs") == 2)
        #expect(throws: StoreError.self) { try work.commit() }
        #expect(push.test.changes.count == before)
        #expect(try push.test.rowCount("push_jobs") == 0)
        #expect(try push.test.rowCount("tasks") == 0)
        // Nothing of it is left to come out later: the next write publishes only its own.
        let next = try await push.task("Next")
        #expect(Array(push.test.changes[before...]).map(\.event) == [.taskCreated(next)])
        #expect(try push.test.rowCount("push_jobs") == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func theChangesOfTwoWritesInOneTurnArePublishedInOrderAfterItsCommit(_ kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let key = keys[0].key
        let before = test.changes.count
        var committedWhenSeen: [Bool] = []
        test.hub.subscribe { _ in committedWhenSeen.append(!((try? test.store.read { $0.isInTransaction }) ?? true)) }
        let work = try #require(try test.store.tryBeginWork())
        let task = try await test.tasks.create(test.agent(key), keyID: nil, NewTask(title: checked("First", .taskTitle)), host: nil)
        let renamed = try await test.keys.update(accountID: account.id, keyID: key.id, label: checked("Renamed"))
        #expect(test.changes.count == before)
        try work.commit()
        #expect(Array(test.changes[before...]) == [
            Change(accountID: account.id, event: .taskCreated(task), actor: .key(key.id)),
            Change(accountID: account.id, event: .keyUpdated(renamed), actor: .account),
        ])
        #expect(committedWhenSeen == [true, true])
    }

    @Test func aWriteOfItsOwnPublishesOnlyOnceItsRowsAreCommitted() async throws {
        let test = try TestStore(.file)
        let (_, _, keys) = try await test.account(withKeys: 1)
        let outside = try Database(path: test.path)
        defer { outside.close() }
        var visibleWhenSeen: [Int] = []
        test.hub.subscribe { change in
            guard case .taskCreated(let task) = change.event else { return }
            let found = try? outside.firstRow("SELECT count(*) AS n FROM tasks WHERE id = ?", [.text(task.id)]) {
                try $0.int("n")
            }
            visibleWhenSeen.append(found ?? -1)
        }
        _ = try await test.tasks.create(test.agent(keys[0].key), keyID: nil, NewTask(title: checked("Seen", .taskTitle)), host: nil)
        #expect(visibleWhenSeen == [1])
    }

    /// Before the unit of work, `Keys` published `key.created` and `key.updated` without
    /// planning them; now every published change was planned, once, in its order.
    @Test(arguments: StoreKind.allCases)
    func everyPublishedChangeWasPlannedOnceKeysChangesIncluded(_ kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let planner = RecordingPlanner()
        test.hub.planners = [planner]
        let (account, _, keys) = try await test.account(withKeys: 1)
        let key = keys[0].key
        _ = try await test.keys.update(accountID: account.id, keyID: key.id, label: checked("Renamed"))
        let use = KeyUse(keyID: key.id, accountID: account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
        try await test.keys.recordUse(use, host: "build-box")
        try await test.keys.recordClient(use, Key.Client(name: "claude-code", version: "2.1"))
        _ = try await test.tasks.create(.account(accountID: account.id), keyID: key.id, NewTask(title: checked("For you", .taskTitle)),
                                  host: nil)
        _ = try await test.inbox.read(use, limit: 20, markRead: true)
        let names = planner.planned.map(\.event.name)
        #expect(names == ["key.created", "key.updated", "key.updated", "key.updated", "task.created", "inbox.updated",
                          "task.updated", "inbox.updated"])
        #expect(planner.planned == test.changes)
    }

    /// What the contract asks of a key's change is no push (`push.md`): planning it adds none.
    @Test func aKeysChangePlannedWithPushOnAddsNoPush() async throws {
        let push = try await Pushing(.memory)
        let jobs = try push.test.rowCount("push_jobs")
        let windows = try push.test.rowCount("push_windows")
        _ = try await push.test.keys.create(accountID: push.key.accountID, label: checked("Second"))
        _ = try await push.test.keys.update(accountID: push.key.accountID, keyID: push.key.id, label: checked("Renamed"))
        let use = KeyUse(keyID: push.key.id, accountID: push.key.accountID, lastUsedAt: nil, lastHost: nil, scopes: .all)
        try await push.test.keys.recordUse(use, host: "build-box")
        #expect(try push.test.rowCount("push_jobs") == jobs)
        #expect(try push.test.rowCount("push_windows") == windows)
    }

    @Test func aSubscriberThatWritesWhileChangesArePublishedGetsAWriteOfItsOwn() async throws {
        let test = try TestStore(.memory)
        let (account, _, keys) = try await test.account(withKeys: 1)
        let key = keys[0].key
        var wrote = false
        // Publishing comes after the COMMIT: the unit of work is over, so a write here (a
        // subscriber's own, synchronous) is a transaction of its own, and it commits.
        test.hub.subscribe { change in
            guard case .taskCreated = change.event, !wrote else { return }
            wrote = (try? test.store.write { db in
                try db.statement("UPDATE keys SET label = 'Busy' WHERE id = ?1").run(.text(key.id))
            }) != nil
        }
        let before = test.changes.count
        _ = try await test.tasks.create(test.agent(key), keyID: nil, NewTask(title: checked("Go", .taskTitle)), host: nil)
        #expect(wrote)
        #expect(Array(test.changes[before...]).map(\.event.name) == ["task.created"])
        #expect(try await test.keys.get(accountID: account.id, keyID: key.id).label == "Busy")
    }
}
