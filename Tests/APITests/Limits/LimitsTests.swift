@testable import API
import HTTP
import Crypto
import JSON
import Relaydeck
import Testing

/// The catalogue holds the contract's numbers (`overview.md#rate-limits`, `#limits`) once,
/// each refusal is written from its number, and every limiter of the server refuses with
/// its catalogue entry's answer.
@Suite struct LimitsTests {
    @Test("The catalogue holds the numbers the contract and the README state")
    func theNumbersAreTheContracts() {
        let rates = Limits.Rate.allCases.map { "\($0.name) \($0.count)/\($0.period == .minute ? "min" : "h")" }
        #expect(rates == ["requests 600/min", "accounts 20/h", "challenges 20/h", "messages 60/h", "notify_user 30/h",
                          "web_sign_in 20/min", "web_challenges 60/min", "web_push_tests 5/min",
                          "oauth_registrations 20/h"])
        #expect(Limits.waitingCallsPerKey == 32 && Limits.waitingCallsPerAccount == 64 && Limits.eventStreamsPerAccount == 16)
        #expect(EventStreams.maxPerAccount == Limits.eventStreamsPerAccount)
        #expect(Limits.counts.map(\.value) == [20, 20, 1_000, 5_000, 20, 200, 200, 20, 10])
        #expect(Set(Limits.Rate.allCases.map(\.name)).count == Limits.Rate.allCases.count)
        #expect(Limits.waitSeconds == 0...50 && QuestionRoutes.waitRange == Limits.waitSeconds)
        let pages = [Limits.inboxPage, Limits.tasksPage, Limits.activityPage].map { "\($0.sizes) (\($0.defaultSize))" }
        #expect(pages == ["1...50 (20)", "1...500 (100)", "1...100 (50)"])
        #expect(Limits.listTasksTool.sizes == 1...500 && Limits.listTasksTool.defaultSize == 50 && Limits.toolWaitSeconds == 30)
        #expect(Limits.server.maxConnections == 16_384)
        let bounds = Limits.requestBounds
        #expect([bounds.maxBodyBytes, bounds.maxTargetBytes, bounds.maxHeadBytes, bounds.maxHeaderCount] == [1_048_576, 8_192, 16_384, 100])
    }

    @Test("Both challenge books keep the catalogue's number for five minutes, and a full one is 429 with Retry-After 60")
    func challengeBooksAreTheCataloguesAndAFullOneIsRateLimited() {
        #expect(ChallengeBook().capacity == Limits.challengesKept && PasskeyChallenges().capacity == Limits.challengesKept)
        #expect(ChallengeBook.lifetimeMillis == 300_000 && PasskeyChallenges.lifetimeMillis == 300_000)
        let full = Limits.challengesFull
        #expect(full.status == 429 && full.code == "rate_limited")
        #expect(full.headers.map { "\($0.name): \($0.value)" } == ["Retry-After: 60"])
        let passkeys = PasskeyChallenges(capacity: 1)
        let random = SystemRandom()
        #expect(passkeys.issue(owner: "", random: random, nowMillis: 0) != nil)
        #expect(passkeys.issue(owner: "", random: random, nowMillis: 299_999) == nil)
        #expect(passkeys.issue(owner: "", random: random, nowMillis: 300_000) != nil)
    }

    @Test("Only the three settings of the README replace a rate limit's count")
    func settingsOverrideWhereTheyDoToday() {
        var configuration = APIConfiguration()
        #expect(Limits.Rate.allCases.allSatisfy { $0.count(in: configuration) == $0.count })
        configuration.requestsPerMinute = 7
        configuration.accountsPerHour = 8
        configuration.challengesPerHour = 9
        let counts = Limits.Rate.allCases.map { $0.count(in: configuration) }
        #expect(counts == [7, 8, 9, 60, 30, 20, 60, 5, 20])
        #expect(Limits.Rate.allCases.compactMap(\.setting) == ["RATE_LIMIT_REQUESTS_PER_MINUTE", "RATE_LIMIT_ACCOUNTS_PER_HOUR",
                                                               "RATE_LIMIT_CHALLENGES_PER_HOUR"])
    }

    @Test("Each rate limiter allows its count in its period, then refuses with its catalogue entry's answer")
    func eachLimiterRefusesAsTheCatalogueSays() throws {
        var configuration = APIConfiguration()
        configuration.requestsPerMinute = 5
        for rate in Limits.Rate.allCases {
            let refusals = LimitRefusals()
            var limiter = RateLimiter(rate, configuration: configuration, refusals: refusals)
            let count = rate.count(in: configuration)
            #expect(limiter.limit == count && limiter.periodMicros == rate.period.micros)
            for _ in 0..<count { try limiter.admit("k", now: 0) }
            #expect(refusals.count(rate) == 0)
            let seconds = Int((rate.period.micros / Int64(count) + 999_999) / 1_000_000)
            let expected = rate.refusal(retryAfter: seconds)
            #expect(throws: Never.self) { try limiter.admit("other", now: 0) }
            do {
                try limiter.admit("k", now: 0)
                Issue.record("\(rate.name): the request past the count was allowed")
            } catch {
                #expect(error.status == 429 && error.code == "rate_limited", "\(rate.name)")
                #expect(error.message == expected.message, "\(rate.name)")
                #expect(error.headers.map(\.value) == expected.headers.map(\.value), "\(rate.name)")
            }
            #expect(Limits.Rate.allCases.map { refusals.count($0) } == Limits.Rate.allCases.map { $0 == rate ? 1 : 0 })
        }
    }

    @Test("A rate refusal says when to come back; notify_user's names its number and period")
    func rateRefusalsAreWrittenFromTheirNumbers() {
        let generic = Limits.Rate.requests.refusal(retryAfter: 7)
        #expect(generic.message == "Too many requests. Try again in 7 seconds.")
        #expect(generic.headers.map(\.name) == ["Retry-After"] && generic.headers.map(\.value) == ["7"])
        let notify = Limits.Rate.notify.refusal(retryAfter: 120)
        #expect(notify.message == "A key can call notify_user 30 times in one hour. Try again in 120 seconds.")
        #expect(notify.message.contains(String(Limits.Rate.notify.count)))
    }

    @Test("A waiting call's refusal names the number it is about")
    func waitRefusalsNameTheirNumber() {
        #expect(WaitRefusal.keyFull.limit == Limits.waitingCallsPerKey)
        #expect(WaitRefusal.accountFull.limit == Limits.waitingCallsPerAccount)
        let tool = WaitRefusal.keyFull.toolError
        #expect(tool.status == 429 && tool.code == "rate_limited")
        #expect(tool.message == "A key can have 32 calls that wait at the same time. Call again with wait_seconds 0, or in 1 second.")
        #expect(MCPTools.tooManyWaiting.message == tool.message)
        for refusal in [WaitRefusal.keyFull, .accountFull] {
            #expect(refusal.error.status == 429 && refusal.error.headers.map(\.value) == ["1"])
        }
    }

    @Test("The text rules are the contract's and each length refusal names its numbers")
    func textRulesNameTheirNumbers() {
        let lengths = Limits.texts.map { "\($0.field) \($0.rule.characters)" }
        #expect(lengths == ["task title 1...200", "task description 0...20000", "task status_note 0...140", "key label 1...40",
                            "notify_user title 1...100", "notify_user body 1...1000", "question prompt 1...300",
                            "question option 1...30", "typed answer 1...1000", "message text 1...2000"])
        for (field, rule) in Limits.texts {
            let message = TextProblem.length(rule.characters).message
            #expect(message.contains(TextRules.grouped(rule.characters.upperBound)), "\(field): \(message)")
            #expect(TextProblem.tooManyBytes(rule.bytes).message.contains(TextRules.grouped(rule.bytes)), "\(field)")
        }
        #expect(Limits.accountStorageBytes == 256 * 1024 * 1024)
    }

    @Test("Each count limit that refuses answers 409 conflict with a message naming its number")
    func countRefusalsNameTheirNumber() throws {
        for count in Limits.counts {
            guard let refusal = count.refusal else { continue }
            #expect(refusal.status == 409 && refusal.code == "conflict", "\(count.name)")
            #expect(refusal.message.contains(TextRules.grouped(count.value)), "\(count.name): \(refusal.message)")
        }
        #expect(Limits.counts.filter { $0.refusal != nil }.map(\.name)
            == ["keys for each account", "devices for each account", "open tasks for each key", "pending questions for each key",
                "connector grants for each key"])
    }

    /// The tool list writes its ranges as schema text (part of MCP's own files): it must say
    /// what the catalogue checks.
    @Test("The MCP tools' schemas state the catalogue's waits, pages and notify_user's rate")
    func theToolSchemasAgreeWithTheCatalogue() throws {
        func property(_ tool: String, _ name: String) throws -> JSON {
            try #require(MCPToolCatalog.tool(named: tool)?.json["inputSchema"]?["properties"]?[name], "\(tool).\(name)")
        }
        for tool in ["check_inbox", "ask_user", "get_answer"] {
            let wait = try property(tool, "wait_seconds")
            #expect(wait["minimum"]?.int64Value == Int64(Limits.waitSeconds.lowerBound), "\(tool)")
            #expect(wait["maximum"]?.int64Value == Int64(Limits.waitSeconds.upperBound), "\(tool)")
        }
        let inboxLimit = try property("check_inbox", "limit")
        #expect(inboxLimit["maximum"]?.int64Value == Int64(Limits.inboxPage.sizes.upperBound))
        #expect(inboxLimit["default"]?.int64Value == Int64(Limits.inboxPage.defaultSize))
        #expect(try property("list_tasks", "limit")["maximum"]?.int64Value == Int64(Limits.tasksPage.sizes.upperBound))
        let notify = try #require(MCPToolCatalog.tool(named: "notify_user")?.json["description"]?.stringValue)
        #expect(notify.contains("\(Limits.Rate.notify.count) calls an \(Limits.Rate.notify.period.word)."))
    }
}
