import Clock
import SQLite

extension Questions {
    /// `rest-api.md#answer-a-question`: the person answers a pending question of the account.
    /// `409` when it is no longer pending (also when it expired just now); the answer must be
    /// one of the options (`confirm`, `choice`) or a text of 1 to 1,000 characters. The
    /// key's inbox gets an `answer` item (`inbox.md#inbox-item`) in the same transaction.
    public func answer(accountID: String, id: String, _ raw: String) throws -> Question {
        try expireDue()
        let now = clock.wallMillis
        return try store.write(hub: hub) { db, turn in
            let question = try Self.fetch(db, .account(accountID), id: id)
            guard question.status == .pending else {
                throw DomainError.conflict("The question is \(question.status.rawValue).")
            }
            let answer = try Self.checkedAnswer(raw, for: question)
            // The answer is kept twice: on the question and in the key's `answer` item.
            try store.quota.admit(db, accountID: accountID, growth: 2 * StorageQuota.bytes(answer))
            let changed = try db.statement(SQL.answer).run(.text(answer), .integer(now), .integer(now), .text(id))
            guard changed == 1 else { throw DomainError.conflict("The question is no longer pending.") }
            let answered = try Self.fetch(db, .account(accountID), id: id)
            try turn.record(Change(accountID: accountID, event: .questionUpdated(answered), actor: .account))
            try inbox.add(db, turn, accountID: accountID, keyID: question.keyID, kind: .answer, from: .person,
                          taskID: question.taskID, questionID: question.id, text: answer, actor: .account)
            return answered
        }
    }

    /// `rest-api.md#cancel-a-question`: `204` for a pending or already cancelled question of
    /// the key, `409` for an answered or expired one.
    public func cancel(keyID: String, id: String) throws {
        try expireDue()
        let now = clock.wallMillis
        try store.write(hub: hub) { db, turn in
            let question = try Self.fetch(db, .key(keyID), id: id)
            switch question.status {
            case .cancelled: return
            case .answered, .expired: throw DomainError.conflict("The question is \(question.status.rawValue).")
            case .pending:
                try db.statement(SQL.cancel).run(.integer(now), .text(id))
                let cancelled = try Self.fetch(db, .key(keyID), id: id)
                try turn.record(Change(accountID: cancelled.accountID, event: .questionUpdated(cancelled), actor: .key(keyID)))
            }
        }
    }

    /// The pending questions of a task that is being deleted become `cancelled`, in the
    /// caller's transaction; the caller records what this returns.
    public static func cancelPending(ofTask taskID: String, in db: Database, now: Int64) throws -> [Change] {
        let ids = try pendingIDs(db, SQL.pendingOfTask, .text(taskID))
        return try ids.map { id in
            try db.statement(SQL.cancel).run(.integer(now), .text(id))
            guard let question = try load(db, id: id) else { throw DomainError.notFound("Question not found.") }
            return Change(accountID: question.accountID, event: .questionUpdated(question), actor: .server)
        }
    }

    /// Expires every pending question whose time has come. Runs from the expiry timer and
    /// before each read or change of questions.
    @discardableResult
    public func expireDue() throws -> Int {
        let now = clock.wallMillis
        // A read first: most of the time nothing is due, and a read takes no lock.
        guard let next = try nextExpiry(), next <= now else { return 0 }
        return try store.write(hub: hub) { db, turn in try expireDue(db, turn, now: now) }
    }

    /// Expires what is due in the caller's write and records the changes; returns how many.
    @discardableResult
    func expireDue(_ db: Database, _ turn: ChangeRecorder, now: Int64) throws -> Int {
        let ids = try Self.pendingIDs(db, SQL.due, .integer(now))
        var changes: [Change] = []
        for id in ids {
            guard try db.statement(SQL.expire).run(.integer(now), .text(id)) == 1,
                  let question = try Self.load(db, id: id) else { continue }
            changes.append(Change(accountID: question.accountID, event: .questionUpdated(question), actor: .server))
        }
        try turn.record(changes)
        return changes.count
    }

    /// The earliest `expires_at` of a pending question, for the expiry timer.
    public func nextExpiry() throws -> Int64? {
        try store.read { db in try db.firstRow(SQL.nextExpiry, []) { try $0.optionalInt64("at") } ?? nil }
    }

    private static func pendingIDs(_ db: Database, _ sql: String, _ value: SQLiteValue) throws -> [String] {
        try db.rows(sql, [value]) { try $0.text("id") }
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
