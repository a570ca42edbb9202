import Clock
import DomainTestSupport
@testable import Relaydeck
import SQLite
import TestSupport
import Testing

/// Where a store test keeps its database: every store test runs on both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case file

    var testDescription: String { rawValue }
}

/// A migrated store with the services over it, a settable wall clock and seeded randomness.
final class TestStore {
    let directory = TemporaryDirectory()
    let path: String
    let store: Store
    let clock = ManualClock()
    let random = SeededRandom()
    let hub = EventHub()
    /// Every change the hub announced, in order.
    private(set) var changes: [Change] = []
    let accounts: Accounts
    let keys: Keys
    let tasks: Tasks
    let inbox: Inbox
    let authenticator: Authenticator

    init(_ kind: StoreKind, options: Database.Options = Database.Options()) throws {
        path = kind == .memory ? ":memory:" : directory.file("relaydeck.db")
        store = Store(path: path, options: options)
        accounts = Accounts(store: store, clock: clock, random: random, hub: hub)
        keys = Keys(store: store, clock: clock, random: random, hub: hub)
        inbox = Inbox(store: store, clock: clock, random: random, hub: hub)
        tasks = Tasks(store: store, clock: clock, random: random, hub: hub, inbox: inbox)
        authenticator = Authenticator(store: store, clock: clock)
        let opened = try store.open()
        #expect(opened)
        hub.subscribe { [unowned self] change in changes.append(change) }
    }

    deinit {
        store.close()
    }

    /// An account with `count` keys labelled `key 1`, `key 2`, ...
    func account(withKeys count: Int) async throws -> (account: Account, token: Secret, keys: [(key: Key, secret: Secret)]) {
        let (account, token) = try await accounts.create()
        var made: [(key: Key, secret: Secret)] = []
        for index in 0..<count {
            made.append(try await keys.create(accountID: account.id, label: checked("key \(index + 1)")))
        }
        return (account, token, made)
    }

    /// The principal of a key's API key, as the gate hands it to a service.
    func agent(_ key: Key) -> Principal {
        .key(KeyUse(keyID: key.id, accountID: key.accountID, lastUsedAt: nil, lastHost: nil, scopes: .all))
    }

    /// The number of rows of `table` (deleted ones included), straight from SQL.
    func rowCount(_ table: String, where condition: String = "1") throws -> Int {
        try store.read { db in
            let statement = try db.prepare("SELECT count(*) FROM \(table) WHERE \(condition)")
            _ = try statement.step()
            return statement.int(0)
        }
    }
}

/// Asserts that `body` throws `StoreError.unavailable(retryAfterSeconds: 1)`.
func expectUnavailable(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("expected StoreError.unavailable, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        expectUnavailable(error, sourceLocation: sourceLocation)
    }
}

/// The same for a body that awaits (a service written against a store session).
func expectUnavailable(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
    do {
        try await body()
        Issue.record("expected StoreError.unavailable, nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        expectUnavailable(error, sourceLocation: sourceLocation)
    }
}

private func expectUnavailable(_ error: any Error, sourceLocation: SourceLocation) {
    if case StoreError.unavailable(let seconds) = error {
        #expect(seconds == 1, sourceLocation: sourceLocation)
    } else {
        Issue.record("expected StoreError.unavailable, got \(error)", sourceLocation: sourceLocation)
    }
}


/// `text` through `rule`, as the API would hand it to the domain.
func checked(_ text: String, _ rule: TextRule) -> CheckedText {
    switch rule.check(text) {
    case .success(let checked): return checked
    case .failure(let problem): fatalError("not a valid text in a test: \(problem.message)")
    }
}

/// `text` through the key label rule, as the API would hand it to the domain.
func checked(_ text: String) -> CheckedText {
    switch TextRule.keyLabel.check(text) {
    case .success(let checked): return checked
    case .failure(let problem): fatalError("not a valid label in a test: \(problem.message)")
    }
}

extension Result where Failure == TextProblem {
    var problem: TextProblem? {
        if case .failure(let problem) = self { return problem }
        return nil
    }
}
