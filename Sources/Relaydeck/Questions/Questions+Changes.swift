import Clock
import SQLite

extension Questions {
    /// `rest-api.md#answer-a-question`: the person answers a pending question of the account.
    /// `409` when it is no longer pending (also when it expired just now); the answer must be
    /// one of the options (`confirm`, `choice`) or a text of 1 to 1,000 characters. The
    /// key's inbox gets an `answer` item (`inbox.md#inbox-item`) in the same transaction.
    public func answer(accountID: String, id: String, _ raw: String) async throws -> Question {
        try await expireDue()
        let now = clock.wallMillis
        return try await store.writing(hub: hub, account: accountID) { db, turn in
            let question = try await Self.fetch(db, .account(accountID), id: id)
            guard question.status == .pending else {
                throw DomainError.conflict("The question is \(question.status.rawValue).")
            }
            let answer = try Self.checkedAnswer(raw, for: question)
            // The answer is kept twice: on the question and in the key's `answer` item.
            try await store.quota.admit(db, accountID: accountID, growth: 2 * StorageQuota.bytes(answer))
            let changed = try await db.run(SQL.answer, .text(answer), .integer(now), .integer(now), .text(id))
            guard changed == 1 else { throw DomainError.conflict("The question is no longer pending.") }
            let answered = try await Self.fetch(db, .account(accountID), id: id)
            try await turn.record(Change(accountID: accountID, event: .questionUpdated(answered), actor: .account))
            try await inbox.add(db, turn, accountID: accountID, keyID: question.keyID, kind: .answer, from: .person,
                          taskID: question.taskID, questionID: question.id, text: answer, actor: .account)
            return answered
        }
    }

    /// `rest-api.md#cancel-a-question`: `204` for a pending or already cancelled question of
    /// the key, `409` for an answered or expired one. `accountID`: the key's.
    public func cancel(accountID: String, keyID: String, id: String) async throws {
        try await expireDue()
        let now = clock.wallMillis
        try await store.writing(hub: hub, account: accountID) { db, turn in
            let question = try await Self.fetch(db, .key(keyID), id: id)
            switch question.status {
            case .cancelled: return
            case .answered, .expired: throw DomainError.conflict("The question is \(question.status.rawValue).")
            case .pending:
                try await db.run(SQL.cancel, .integer(now), .text(id))
                let cancelled = try await Self.fetch(db, .key(keyID), id: id)
                try await turn.record(Change(accountID: cancelled.accountID, event: .questionUpdated(cancelled), actor: .key(keyID)))
            }
        }
    }

    /// The pending questions of a task that is being deleted become `cancelled`, in the
    /// caller's transaction; the caller records what this returns.
    public static func cancelPending(ofTask taskID: String, in db: any StoreSession, now: Int64) async throws -> [Change] {
        let ids = try await pendingIDs(db, SQL.pendingOfTask, .text(taskID))
        var changes: [Change] = []
        for id in ids {
            try await db.run(SQL.cancel, .integer(now), .text(id))
            guard let question = try await load(db, id: id) else { throw DomainError.notFound("Question not found.") }
            changes.append(Change(accountID: question.accountID, event: .questionUpdated(question), actor: .server))
        }
        return changes
    }

    /// Expires every pending question whose time has come. Runs from the expiry timer and
    /// before each read or change of questions. A write for each account that has one due:
    /// on PostgreSQL each joins its account's commit group, so the expiry takes the rows of
    /// one account at a time, in that account's order, never several accounts' in a group of
    /// one (which could each wait for the other's).
    @discardableResult
    public func expireDue() async throws -> Int {
        let now = clock.wallMillis
        // A read first: most of the time nothing is due, and a read takes no lock.
        guard let next = try await nextExpiry(), next <= now else { return 0 }
        let accounts = try await store.reading { db in
            try await db.rows(SQL.dueAccounts, [.integer(now)]) { try $0.text("account_id") }
        }
        var expired = 0
        for accountID in accounts {
            expired += try await store.writing(hub: hub, account: accountID) { db, turn in
                try await expireDue(db, turn, now: now, SQL.dueOfAccount, .text(accountID))
            }
        }
        return expired
    }

    /// Expires the questions `due` finds (due at `now` among `owner`'s) in the caller's write
    /// and records the changes; returns how many.
    @discardableResult
    func expireDue(_ db: any StoreSession, _ turn: ChangeRecorder, now: Int64, _ due: String,
                   _ owner: SQLiteValue) async throws -> Int {
        let ids = try await Self.pendingIDs(db, due, .integer(now), owner)
        var changes: [Change] = []
        for id in ids {
            guard try await db.run(SQL.expire, .integer(now), .text(id)) == 1,
                  let question = try await Self.load(db, id: id) else { continue }
            changes.append(Change(accountID: question.accountID, event: .questionUpdated(question), actor: .server))
        }
        try await turn.record(changes)
        return changes.count
    }

    /// The earliest `expires_at` of a pending question, for the expiry timer.
    public func nextExpiry() async throws -> Int64? {
        try await store.reading { db in try await db.firstRow(SQL.nextExpiry, []) { try $0.optionalInt64("at") } ?? nil }
    }

    private static func pendingIDs(_ db: any StoreSession, _ sql: String, _ values: SQLiteValue...) async throws -> [String] {
        try await db.rows(sql, values) { try $0.text("id") }
    }

    /// The answer as stored: an option label as given (a `confirm` or `choice` answer must be
    /// one of the options, after white space is folded), or the typed text trimmed.
    static func checkedAnswer(_ raw: String, for question: Question) throws -> String {
        switch question.kind {
        case .confirm, .choice:
            // An answer longer than any option may be is none of them: not folded at all.
            let folded = raw.utf8.count <= TextRule.questionOption.bytes ? TextRules.oneLine(raw) : ""
            guard let option = question.options.first(where: { $0 == folded }) else {
                let names = question.options.joined(separator: ", ")
                throw DomainError.validation([FieldProblem("answer", "Must be one of: \(names).")])
            }
            return option
        case .text:
            switch TextRule.typedAnswer.check(raw) {
            case .success(let text): return text.value
            case .failure(let problem): throw DomainError.validation([FieldProblem("answer", problem.message)])
            }
        }
    }
}
