import JSON
@testable import Relaydeck
import Testing

/// What `Change(feedBytes:)` refuses: bytes cut short, not JSON, another form, a member
/// missing, of another type or out of its field's values. Each refusal is a
/// `ChangeFeedCodingError` naming the member, never its value.
@Suite struct ChangeFeedRefusalTests {
    static func reason(_ bytes: [UInt8]) -> ChangeFeedCodingError.Reason? {
        do {
            _ = try Change(feedBytes: bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    static func reason(_ text: String) -> ChangeFeedCodingError.Reason? {
        reason(Array(text.utf8))
    }

    /// The encoded `task.updated` with `previous`, as text to change by hand.
    static func encoded() throws -> String {
        let change = Change(accountID: ChangeFeedCodingTests.task.accountID, event: .taskUpdated(ChangeFeedCodingTests.task),
                            actor: .key(ChangeFeedCodingTests.key.id), previous: ChangeFeedCodingTests.task)
        return String(decoding: try change.feedBytes(), as: UTF8.self)
    }

    @Test func everyTruncationOfARowIsRefused() throws {
        for change in ChangeFeedCodingTests.events.map({ Change(accountID: "acc_1", event: $0, actor: .key("key_1")) }) {
            let bytes = try change.feedBytes()
            for length in 0..<bytes.count {
                #expect(Self.reason(Array(bytes.prefix(length))) != nil, "\(change.event.name) cut at \(length)")
            }
        }
    }

    @Test func bytesThatAreNotJSONAreRefusedAsSuch() {
        guard case .notJSON? = Self.reason([0xFF, 0xFE, 0x00]) else { Issue.record("not refused as JSON"); return }
        guard case .notJSON? = Self.reason([UInt8](repeating: UInt8(ascii: "["), count: 100)) else {
            Issue.record("deep nesting not refused as JSON")
            return
        }
        #expect(Self.reason("") == .notJSON(JSONParseError(.empty, at: 0)))
        #expect(Self.reason("[1]") == .invalid("change"))
        #expect(Self.reason("\"task.created\"") == .invalid("change"))
    }

    @Test func moreBytesThanTheBoundAreRefusedBeforeTheyAreRead() {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: Change.feedMaxBytes + 1)
        #expect(Self.reason(bytes) == .tooLarge(bytes: Change.feedMaxBytes + 1))
    }

    @Test func anotherFormOrNoneIsRefused() throws {
        let row = try Self.encoded()
        #expect(Self.reason(row.replacingFirst("\"v\":1", with: "\"v\":2")) == .unknownVersion)
        #expect(Self.reason(row.replacingFirst("\"v\":1", with: "\"w\":1")) == .unknownVersion)
        #expect(Self.reason(row.replacingFirst("\"v\":1", with: "\"v\":\"1\"")) == .unknownVersion)
    }

    @Test func aMemberMissingOrOfAnotherTypeIsRefusedByItsPath() throws {
        let row = try Self.encoded()
        #expect(Self.reason(row.replacingFirst("\"account\":", with: "\"acount\":")) == .missing("change.account"))
        #expect(Self.reason(row.replacingFirst("\"title\":", with: "\"tittle\":")) == .missing("change.task.title"))
        #expect(Self.reason(row.replacingFirst("\"notify\":true", with: "\"notify\":1")) == .invalid("change.task.notify"))
        #expect(Self.reason(row.replacingFirst("\"progress\":40", with: "\"progress\":40.5")) == .invalid("change.task.progress"))
        #expect(Self.reason(row.replacingFirst("\"created_at\":1760000000123", with: "\"created_at\":null"))
                == .invalid("change.task.created_at"))
        #expect(Self.reason(row.replacingFirst("\"created_at\":1760000000123", with: "\"created_at\":9223372036854775808"))
                == .invalid("change.task.created_at"))
        #expect(Self.reason(row.replacingFirst("\"status\":\"in_progress\"", with: "\"status\":\"started\""))
                == .invalid("change.task.status"))
        #expect(Self.reason(row.replacingFirst("\"actor\":{\"key\":", with: "\"actor\":{\"kee\":")) == .missing("change.actor.key"))
        #expect(Self.reason(row.replacingFirst("\"actor\":{\"key\":\"\(ChangeFeedCodingTests.key.id)\"}", with: "\"actor\":\"agent\""))
                == .invalid("change.actor"))
        #expect(Self.reason(row.replacingFirst("\"event\":\"task.updated\"", with: "\"event\":\"task.moved\"")) == .unknownEvent)
        #expect(Self.reason(row.replacingFirst("\"v\":1,", with: "\"v\":1,\"v\":1,")) == .duplicateMember("change.v"))
        // `previous` may be left out, but not be something else.
        #expect(Self.reason(row.replacingFirst("\"previous\":{", with: "\"previous\":[{").replacingLast("}}", with: "}]}"))
                == .invalid("change.previous"))
    }

    @Test func aKeyOrQuestionOutOfItsFieldsValuesIsRefused() throws {
        let key = String(decoding: try Change(accountID: "a", event: .keyUpdated(ChangeFeedCodingTests.key), actor: .account)
            .feedBytes(), as: UTF8.self)
        #expect(Self.reason(key.replacingFirst("\"scopes\":37", with: "\"scopes\":64")) == .invalid("change.key.scopes"))
        #expect(Self.reason(key.replacingFirst("\"last_client\":{\"name\":", with: "\"last_client\":{\"nme\":"))
                == .missing("change.key.last_client.name"))
        #expect(Self.reason(key.replacingFirst("\"done\":1000", with: "\"done\":\"1000\"")) == .invalid("change.key.counts.done"))
        let question = String(decoding: try Change(accountID: "a", event: .questionCreated(ChangeFeedCodingTests.question),
                                                   actor: .account).feedBytes(), as: UTF8.self)
        #expect(Self.reason(question.replacingFirst("[\"Yes\",", with: "[1,")) == .invalid("change.question.options"))
        #expect(Self.reason(question.replacingFirst("\"kind\":\"choice\"", with: "\"kind\":\"poll\"")) == .invalid("change.question.kind"))
    }

    @Test func aRefusalNamesTheMemberNeverItsValue() throws {
        let row = try Self.encoded().replacingFirst("\"status\":\"in_progress\"", with: "\"status\":\"hunter2\"")
        let reason = try #require(Self.reason(row))
        let text = ChangeFeedCodingError(reason).description
        #expect(text == "a feed row's change.task.status is not valid")
        #expect(!text.contains("hunter2"))
    }
}

extension String {
    /// The first occurrence of `target` replaced; the text unchanged when there is none,
    /// which the test then sees as the row read back whole.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }

    func replacingLast(_ target: String, with replacement: String) -> String {
        guard let range = ranges(of: target).last else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
