@testable import Relaydeck
import Testing

/// A change written for the feed between nodes and read back (`Change+Feed`): the same change,
/// every field, `previous` included; anything that is not such a row is refused with a
/// `ChangeFeedCodingError`, never a trap.
@Suite struct ChangeFeedCodingTests {
    static let task = WorkTask(
        id: "tsk_01jq0000000000000000000000", accountID: "acc_01jq0000000000000000000000",
        keyID: "key_01jq0000000000000000000000", title: "Ship \"it\" \\ now", description: "Line one\nline\ttwo\u{0B} 👍🏽 \u{0}",
        status: .inProgress, priority: .urgent, notify: true, progress: 40, statusNote: "halfway", source: .agent,
        createdAt: 1_760_000_000_123, updatedAt: 1_760_000_100_456, completedAt: nil, seenAt: 1_760_000_050_000,
        host: "studio-mac")
    static let question = Question(
        id: "qst_01jq0000000000000000000000", accountID: task.accountID, keyID: task.keyID, taskID: task.id,
        prompt: "Deploy to \"prod\"?", kind: .choice, options: ["Yes", "No", "Later ⏰"], status: .answered,
        answer: "Later ⏰", createdAt: 1_760_000_000_000, answeredAt: 1_760_000_030_001, expiresAt: 1_760_003_600_000)
    static let key = Key(
        id: task.keyID, accountID: task.accountID, label: "Cursor (work)", prefix: "rdk_abcd", last4: "wxyz",
        createdAt: 1_750_000_000_000, lastUsedAt: 1_760_000_000_999, lastClient: Key.Client(name: "claude-code", version: "1.2.3"),
        lastHost: "laptop", scopes: ScopeSet([.tasksRead, .questions, .inbox]),
        counts: Key.Counts(todo: 3, inProgress: 2, done: 1_000, cancelled: 5_000))

    static let events: [Event] = [
        .taskCreated(task), .taskUpdated(task), .taskDeleted(taskID: task.id, keyID: task.keyID), .keyCreated(key),
        .keyUpdated(key), .keyDeleted(keyID: key.id), .questionCreated(question), .questionUpdated(question),
        .inboxUpdated(keyID: key.id, unread: 200), .accountDeleted,
    ]
    static let actors: [Change.Actor] = [.account, .key(key.id), .server]

    static func roundTrip(_ change: Change) throws -> Change {
        try Change(feedBytes: try change.feedBytes())
    }

    @Test(arguments: events, actors)
    func everyEventWithEveryActorReadsBackAsTheSameChange(event: Event, actor: Change.Actor) throws {
        let change = Change(accountID: Self.task.accountID, event: event, actor: actor)
        let read = try Self.roundTrip(change)
        #expect(read == change)
        #expect(read.event == event && read.actor == actor && read.accountID == change.accountID)
        #expect(read.previous == nil)
    }

    @Test func previousReadsBackWithEveryField() throws {
        var before = Self.task
        before.status = .todo
        before.progress = nil
        before.statusNote = nil
        before.seenAt = nil
        before.title = "Before"
        let change = Change(accountID: Self.task.accountID, event: .taskUpdated(Self.task), actor: .key(Self.key.id), previous: before)
        let read = try Self.roundTrip(change)
        #expect(read == change)
        // `==` of changes passes over `previous`: compared on its own.
        #expect(read.previous == before)
        #expect(read.previous != Self.task)
    }

    @Test func everyOptionalFieldReadsBackSetAndUnset() throws {
        let bare = WorkTask(id: "t", accountID: "a", keyID: "k", title: "", description: "", status: .done, priority: .low,
                            notify: false, progress: nil, statusNote: nil, source: .app, createdAt: Int64.min,
                            updatedAt: Int64.max, completedAt: nil, seenAt: nil, host: nil)
        var full = bare
        full.progress = 0
        full.statusNote = ""
        full.completedAt = -1
        full.seenAt = 0
        for task in [bare, full] {
            #expect(try Self.roundTrip(Change(accountID: "a", event: .taskCreated(task), actor: .server)).event == .taskCreated(task))
        }
        var key = Self.key
        key.lastUsedAt = nil
        key.lastClient = nil
        key.lastHost = nil
        key.scopes = ScopeSet([])
        #expect(try Self.roundTrip(Change(accountID: "a", event: .keyUpdated(key), actor: .account)).event == .keyUpdated(key))
        let open = Question(id: "q", accountID: "a", keyID: "k", taskID: nil, prompt: "Go?", kind: .confirm,
                            options: Question.confirmOptions, status: .pending, answer: nil, createdAt: 1, answeredAt: nil,
                            expiresAt: 2)
        #expect(try Self.roundTrip(Change(accountID: "a", event: .questionCreated(open), actor: .key("k"))).event
                == .questionCreated(open))
    }

    @Test func theLargestChangeTheLimitsAllowFitsTheBound() throws {
        let largest = Self.largestTask()
        let change = Change(accountID: largest.accountID, event: .taskUpdated(largest), actor: .key(largest.keyID), previous: largest)
        let bytes = try change.feedBytes()
        #expect(bytes.count <= Change.feedMaxBytes)
        // The reckoning in `feedMaxBytes`' comment: about 967,000 bytes.
        #expect(bytes.count > 960_000)
        let read = try Change(feedBytes: bytes)
        #expect(read == change && read.previous == largest)
    }

    @Test func aChangePastTheBoundIsRefusedWhenWritten() {
        var task = Self.largestTask()
        task.description += task.description
        let change = Change(accountID: task.accountID, event: .taskUpdated(task), actor: .server, previous: task)
        #expect {
            try change.feedBytes()
        } throws: { error in
            guard let error = error as? ChangeFeedCodingError, case .tooLarge(let bytes) = error.reason else { return false }
            return bytes > Change.feedMaxBytes
        }
    }

    /// A task at every bound of `overview.md#limits`, each text made of what JSON writes
    /// longest: U+000B (`\u000b`) where white space stays, `"` where the text is one line.
    static func largestTask() -> WorkTask {
        let id = "tsk_" + String(repeating: "z", count: 26)
        return WorkTask(id: id, accountID: "acc_" + String(repeating: "z", count: 26), keyID: "key_" + String(repeating: "z", count: 26),
                        title: String(repeating: "\"", count: TextRule.taskTitle.bytes),
                        description: String(repeating: "\u{0B}", count: TextRule.taskDescription.bytes),
                        status: .inProgress, priority: .medium, notify: true, progress: 100,
                        statusNote: String(repeating: "\\", count: TextRule.statusNote.bytes), source: .agent,
                        createdAt: Int64.min, updatedAt: Int64.min, completedAt: Int64.min, seenAt: Int64.min,
                        host: String(repeating: "\"", count: 64))
    }
}
