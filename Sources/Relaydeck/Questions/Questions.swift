import Clock
import JSON
import SQLite

/// The questions of the agents to the person (`rest-api.md#questions`). A question leaves
/// `pending` once: answered by the person, cancelled by its agent (or with its task), or
/// expired at `expires_at` (by the timer within seconds, at once when it is read or
/// answered). Every change is one transaction whose `WHERE status = 'pending'` makes the
/// first change win.
public final class Questions {
    /// `overview.md#limits`
    public static let maxPendingPerKey = 20
    /// The refusal of the question past `maxPendingPerKey` (`409`), written from it.
    public static let fullError = DomainError.conflict("A key can have \(maxPendingPerKey) pending questions.")
    public static let expiresIn = 60...86_400
    public static let defaultExpiresIn = 3_600
    public static let optionCount = 2...4
    /// `GET /v1/questions` gives this many at most, newest first.
    public static let listLimit = 100

    let store: any SessionStore
    let clock: any Clock
    private let random: any RandomSource
    let hub: EventHub
    /// An answer leaves an `answer` item in the key's inbox, in the same transaction.
    let inbox: Inbox

    public init(store: any SessionStore, clock: any Clock, random: any RandomSource, hub: EventHub, inbox: Inbox) {
        self.store = store
        self.clock = clock
        self.random = random
        self.hub = hub
        self.inbox = inbox
    }

    /// What an agent asks; checked by the caller's field reader (`QuestionDraft.problems`
    /// names the rules that join fields).
    public struct Draft: Sendable {
        public var prompt: CheckedText
        public var kind: Question.Kind
        public var options: [CheckedText]
        public var taskID: String?
        public var expiresIn: Int

        public init(prompt: CheckedText, kind: Question.Kind, options: [CheckedText], taskID: String?, expiresIn: Int) {
            self.prompt = prompt
            self.kind = kind
            self.options = options
            self.taskID = taskID
            self.expiresIn = expiresIn
        }
    }

    /// Asks a question for `keyID`: the task, if any, must be a task of the same key; 20
    /// pending questions per key.
    public func ask(accountID: String, keyID: String, _ draft: Draft) async throws -> Question {
        let now = clock.wallMillis
        let options = draft.kind == .confirm ? Question.confirmOptions : draft.options.map(\.value)
        let question = Question(
            id: Identifier.make("qst_", millis: now, random: random), accountID: accountID, keyID: keyID,
            taskID: draft.taskID, prompt: draft.prompt.value, kind: draft.kind, options: options, status: .pending,
            answer: nil, createdAt: now, answeredAt: nil, expiresAt: now + Int64(draft.expiresIn) * 1000)
        try await store.writing(hub: hub, account: accountID) { db, turn in
            // The key's due questions do not count toward its cap (the others', the sweep's).
            try await expireDue(db, turn, now: now, SQL.dueOfKey, .text(keyID))
            if let taskID = draft.taskID {
                guard try await db.exists(SQL.taskOfKey, .text(taskID), .text(keyID)) else {
                    throw DomainError.notFound("Task not found.")
                }
            }
            // One writer of the key's questions at a time, so the cap holds on PostgreSQL too.
            try await db.lockKey(keyID)
            let pending = try await db.count(SQL.countPending, .text(keyID))
            if pending >= Self.maxPendingPerKey {
                throw Self.fullError
            }
            let encoded = Self.encode(options)
            try await store.quota.admit(db, accountID: accountID, growth: StorageQuota.bytes(question.prompt, encoded))
            try await db.run(SQL.insert,
                .text(question.id), .text(accountID), .text(keyID), draft.taskID.map { .text($0) } ?? .null,
                .text(question.prompt), .text(question.kind.rawValue), .text(encoded),
                .integer(now), .integer(question.expiresAt))
            try await turn.record(Change(accountID: accountID, event: .questionCreated(question), actor: .key(keyID)))
        }
        return question
    }

    /// The questions `scope` may see with one of `statuses`, newest first.
    public func list(_ scope: Scope, statuses: [Question.Status]) async throws -> [Question] {
        try await expireDue()
        return try await store.reading { db in
            let (sql, owner) = switch scope {
            case .account(let id): (SQL.listForAccount(db.dialect), id)
            case .key(let id): (SQL.listForKey(db.dialect), id)
            }
            let values: [SQLiteValue] = [.text(owner), .text(Self.encode(statuses.map(\.rawValue))),
                                         .integer(Int64(Self.listLimit))]
            return try await db.rows(sql, values) { try Question(row: $0) }
        }
    }

    /// One question `scope` may see; a pending one past `expires_at` expires now.
    public func get(_ scope: Scope, id: String) async throws -> Question {
        let question = try await store.reading { db in try await Self.fetch(db, scope, id: id) }
        guard question.status == .pending, question.expiresAt <= clock.wallMillis else { return question }
        try await expireDue()
        return try await store.reading { db in try await Self.fetch(db, scope, id: id) }
    }

    /// Who asks: the account sees the questions of all its keys, a key its own.
    public enum Scope: Sendable {
        case account(String)
        case key(String)
    }

    static func load(_ db: any StoreSession, id: String) async throws -> Question? {
        try await db.firstRow(SQL.get, [.text(id)]) { try Question(row: $0) }
    }

    static func fetch(_ db: any StoreSession, _ scope: Scope, id: String) async throws -> Question {
        guard let question = try await load(db, id: id) else { throw DomainError.notFound("Question not found.") }
        switch scope {
        case .account(let accountID) where question.accountID == accountID: return question
        case .key(let keyID) where question.keyID == keyID: return question
        default: throw DomainError.notFound("Question not found.")
        }
    }

    static func encode(_ strings: [String]) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        for string in strings { writer.string(string) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
