import Clock
import PostgresStore
@testable import Relaydeck
import Testing

/// `Questions` on a real PostgreSQL database (`AccountsOnPostgresTests.Services`: the filled
/// store's copy, whose qst_2 is past its expiry), with the behaviour its SQLite tests check:
/// asked for a task of the key only, 20 pending a key, listed by status newest first for the
/// key or the account, answered once with the answer in the key's inbox, cancelled, expired
/// by the sweep and when read, and cancelled with the task that goes; each change published
/// after its COMMIT.
@Suite struct QuestionsOnPostgresTests {
    typealias Services = AccountsOnPostgresTests.Services

    /// An account of two keys, the filled store's due question already expired.
    final class Asking {
        let domain: Services
        let account: Account
        let keys: [Key]

        init() throws {
            domain = try Services()
            let made = try domain.account(withKeys: 2)
            account = made.account
            keys = made.keys.map(\.key)
            let expired = try domain.run { [domain] in try await domain.questions.expireDue() }
            #expect(expired == 1)
        }

        var person: Principal { .account(accountID: account.id) }

        func ask(_ prompt: String, key: Int = 0, kind: Question.Kind = .confirm, options: [String] = [], taskID: String? = nil,
                 expiresIn: Int = Questions.defaultExpiresIn) throws -> Question {
            let draft = Questions.Draft(prompt: Services.checked(prompt, .questionPrompt), kind: kind,
                                        options: options.map { Services.checked($0, .questionOption) }, taskID: taskID,
                                        expiresIn: expiresIn)
            return try domain.run { try await self.domain.questions.ask(accountID: self.account.id, keyID: self.keys[key].id, draft) }
        }

        func list(_ scope: Questions.Scope, _ statuses: [Question.Status] = [.pending]) throws -> [String] {
            try domain.run { try await self.domain.questions.list(scope, statuses: statuses) }.map(\.id)
        }

        func answer(_ id: String, _ text: String) throws -> Question {
            try domain.run { try await self.domain.questions.answer(accountID: self.account.id, id: id, text) }
        }

        func cancel(_ id: String, key: Int = 0) throws {
            try domain.run { try await self.domain.questions.cancel(accountID: self.account.id, keyID: self.keys[key].id, id: id) }
        }
    }

    @Test func theFilledStoresDueQuestionExpiresBySweepOnPostgreSQL() throws {
        let test = try Asking()
        let expired = try #require(test.domain.published.last)
        guard case .questionUpdated(let question) = expired.event else {
            Issue.record("not a question's change: \(expired)")
            return
        }
        #expect(question.id == "qst_2" && question.status == .expired && expired.actor == .server && expired.accountID == "acc_1")
        #expect(try test.domain.run { try await test.domain.questions.nextExpiry() } == nil)
        #expect(try test.domain.run { try await test.domain.questions.expireDue() } == 0)
    }

    @Test func aQuestionIsAskedForATaskOfItsKeyOnlyAndAnnouncedOnPostgreSQL() throws {
        let test = try Asking()
        let domain = test.domain
        let task = try domain.run {
            try await domain.tasks.create(test.person, keyID: test.keys[0].id, NewTask(title: Services.checked("t", .taskTitle)), host: nil)
        }
        let before = domain.published.count
        let asked = try test.ask(" Which\nway? ", kind: .choice, options: ["Left", " Right "], taskID: task.id, expiresIn: 60)
        #expect(asked == Question(id: asked.id, accountID: test.account.id, keyID: test.keys[0].id, taskID: task.id, prompt: "Which way?",
                                  kind: .choice, options: ["Left", "Right"], status: .pending, answer: nil,
                                  createdAt: 1_760_000_000_000, answeredAt: nil, expiresAt: 1_760_000_060_000))
        #expect(domain.published(since: before)
            == [Change(accountID: test.account.id, event: .questionCreated(asked), actor: .key(test.keys[0].id))])
        #expect(try domain.run { try await domain.questions.get(.key(test.keys[0].id), id: asked.id) } == asked)
        #expect(try test.ask("Sure?").options == Question.confirmOptions)
        for taskID in [task.id, "tsk_1", "tsk_none"] {
            #expect(throws: DomainError.notFound("Task not found."), "\(taskID)") { _ = try test.ask("a", key: 1, taskID: taskID) }
        }
        #expect(domain.published.count == before + 2)
    }

    @Test func aKeyHasTwentyPendingQuestionsAndAClosedOneFreesAPlaceOnPostgreSQL() throws {
        let test = try Asking()
        let first = try test.ask("q0")
        for index in 1..<Questions.maxPendingPerKey { _ = try test.ask("q\(index)") }
        let before = test.domain.published.count
        #expect(throws: Questions.fullError) { _ = try test.ask("one more") }
        #expect(test.domain.published.count == before)
        #expect(try test.domain.count("SELECT count(*) AS n FROM questions WHERE key_id = '\(test.keys[0].id)'") == 20)
        // Another key is not affected; a cancelled question frees a place.
        _ = try test.ask("other", key: 1)
        try test.cancel(first.id)
        _ = try test.ask("now it fits")
    }

    @Test func theListIsNewestFirstByStatusForTheKeyOrTheAccountOnPostgreSQL() throws {
        let test = try Asking()
        let first = try test.ask("first")
        test.domain.clock.advance(millis: 1000)
        let second = try test.ask("second")
        test.domain.clock.advance(millis: 1000)
        let others = try test.ask("another key's", key: 1)
        _ = try test.answer(first.id, "No")
        let (key0, key1) = (Questions.Scope.key(test.keys[0].id), Questions.Scope.key(test.keys[1].id))
        #expect(try test.list(key0) == [second.id])
        #expect(try test.list(key0, [.answered]) == [first.id])
        #expect(try test.list(key0, [.pending, .answered]) == [second.id, first.id])
        #expect(try test.list(key1) == [others.id])
        #expect(try test.list(.account(test.account.id), [.pending, .answered]) == [others.id, second.id, first.id])
        #expect(try test.list(.account(test.account.id), [.expired, .cancelled]).isEmpty)
        #expect(try test.list(.account("acc_1"), Question.Status.allCases) == ["qst_2", "qst_1"])
        #expect(throws: DomainError.notFound("Question not found.")) {
            try test.domain.run { try await test.domain.questions.get(key1, id: first.id) }
        }
    }

    @Test func anAnswerLeavesPendingOnceAndReachesTheKeysInboxOnPostgreSQL() throws {
        let test = try Asking()
        let domain = test.domain
        let asked = try test.ask("Deploy?")
        domain.clock.advance(millis: 2000)
        let before = domain.published.count
        let answered = try test.answer(asked.id, " Yes ")
        var expected = asked
        expected.status = .answered
        expected.answer = "Yes"
        expected.answeredAt = 1_760_000_002_000
        #expect(answered == expected)
        #expect(domain.published(since: before) == [
            Change(accountID: test.account.id, event: .questionUpdated(expected), actor: .account),
            Change(accountID: test.account.id, event: .inboxUpdated(keyID: test.keys[0].id, unread: 1), actor: .account),
        ])
        let use = KeyUse(keyID: test.keys[0].id, accountID: test.account.id, lastUsedAt: nil, lastHost: nil, scopes: .all)
        let item = try #require(try domain.run { try await domain.inbox.read(use, limit: 20, markRead: false) }.items.first)
        #expect(item.kind == .answer && item.questionID == asked.id && item.text == "Yes" && item.from == .person)
        #expect(throws: DomainError.conflict("The question is answered.")) { _ = try test.answer(asked.id, "No") }
        #expect(throws: DomainError.conflict("The question is answered.")) { try test.cancel(asked.id) }
        let other = try test.ask("Which?", kind: .choice, options: ["Staging", "Prod"])
        #expect(throws: DomainError.validation([FieldProblem("answer", "Must be one of: Staging, Prod.")])) {
            _ = try test.answer(other.id, "staging")
        }
        #expect(throws: DomainError.notFound("Question not found.")) {
            _ = try domain.run { try await domain.questions.answer(accountID: "acc_1", id: other.id, "Prod") }
        }
        #expect(domain.published.count == before + 3)
    }

    @Test func aCancelledQuestionIsCancelledOnceAndAnotherKeysIsNotFoundOnPostgreSQL() throws {
        let test = try Asking()
        let asked = try test.ask("Deploy?")
        let before = test.domain.published.count
        try test.cancel(asked.id)
        try test.cancel(asked.id)
        var cancelled = asked
        cancelled.status = .cancelled
        #expect(test.domain.published(since: before)
            == [Change(accountID: test.account.id, event: .questionUpdated(cancelled), actor: .key(test.keys[0].id))])
        #expect(throws: DomainError.notFound("Question not found.")) { try test.cancel(asked.id, key: 1) }
        #expect(throws: DomainError.conflict("The question is cancelled.")) { _ = try test.answer(asked.id, "Yes") }
    }

    @Test func aQuestionExpiresAtItsTimeBySweepOrWhenReadOnPostgreSQL() throws {
        let test = try Asking()
        let domain = test.domain
        let early = try test.ask("early", expiresIn: 60)
        let late = try test.ask("late", expiresIn: 120)
        #expect(try domain.run { try await domain.questions.nextExpiry() } == early.expiresAt)
        domain.clock.advance(millis: 60_000)
        let before = domain.published.count
        #expect(try domain.run { try await domain.questions.expireDue() } == 1)
        var expired = early
        expired.status = .expired
        #expect(domain.published(since: before) == [Change(accountID: test.account.id, event: .questionUpdated(expired), actor: .server)])
        #expect(throws: DomainError.conflict("The question is expired.")) { _ = try test.answer(early.id, "Yes") }
        domain.clock.advance(millis: 60_000)
        // Read when due: expired then, by the read itself.
        let read = try domain.run { try await domain.questions.get(.account(test.account.id), id: late.id) }
        #expect(read.status == .expired)
        #expect(try domain.run { try await domain.questions.nextExpiry() } == nil)
        #expect(Set(try test.list(.account(test.account.id), [.expired])) == [late.id, early.id])
    }

    @Test func theTasksPendingQuestionsAreCancelledWhenItGoesOnPostgreSQL() throws {
        let test = try Asking()
        let domain = test.domain
        let agent = Principal.key(KeyUse(keyID: test.keys[0].id, accountID: test.account.id, lastUsedAt: nil, lastHost: nil, scopes: .all))
        let task = try domain.run { try await domain.tasks.create(agent, keyID: nil, NewTask(title: Services.checked("t", .taskTitle)), host: nil) }
        let pending = try test.ask("pending", taskID: task.id)
        let answered = try test.ask("answered", taskID: task.id)
        let unrelated = try test.ask("unrelated")
        _ = try test.answer(answered.id, "No")
        let before = domain.published.count
        try domain.run { try await domain.tasks.delete(agent, taskID: task.id) }
        var cancelled = pending
        cancelled.status = .cancelled
        #expect(domain.published(since: before).contains(Change(accountID: test.account.id, event: .questionUpdated(cancelled), actor: .server)))
        let statuses = try domain.run {
            try await domain.questions.list(.account(test.account.id), statuses: Question.Status.allCases)
        }.map { "\($0.id) \($0.status.rawValue)" }
        #expect(Set(statuses) == ["\(unrelated.id) pending", "\(answered.id) answered", "\(pending.id) cancelled"])
    }
}
