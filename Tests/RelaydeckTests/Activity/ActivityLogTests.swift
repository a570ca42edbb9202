import Clock
import JSON
@testable import Relaydeck
import SQLite
import Testing

/// `ActivityLog`: entries, the newest 200 per key, pages by cursor, the 7-day cut.
@Suite struct ActivityLogTests {
    let test: TestStore
    let log: ActivityLog
    let accountID: String
    let keyIDs: [String]

    init(_ kind: StoreKind = .memory) async throws {
        test = try TestStore(kind)
        log = ActivityLog(store: test.store, clock: test.clock, random: test.random)
        let (account, _, keys) = try await test.account(withKeys: 2)
        accountID = account.id
        keyIDs = keys.map(\.key.id)
    }

    @discardableResult
    func append(_ keyIndex: Int = 0, at: Int64? = nil, ok: Bool = true) async throws -> ActivityEntry {
        try await log.append(keyID: keyIDs[keyIndex], at: at ?? test.clock.wallMillis, surface: .rest, action: "GET /v1/tasks",
                       ok: ok, code: "not_found", message: "Task not found.", durationMillis: 4, client: nil, host: "studio-mac")
    }

    func all(_ keyIndex: Int = 0) async throws -> [ActivityEntry] {
        var entries: [ActivityEntry] = []
        var cursor: ActivityCursor?
        repeat {
            let page = try await log.page(accountID: accountID, keyID: keyIDs[keyIndex], limit: 7, after: cursor)
            entries += page.entries
            cursor = page.next
        } while cursor != nil
        return entries
    }

    @Test func anEntryKeepsItsFieldsAndAnOkOneHasNoCodeOrMessage() async throws {
        let failed = try await append(ok: false)
        #expect(failed.code == "not_found" && failed.message == "Task not found.")
        let fine = try await log.append(keyID: keyIDs[0], at: test.clock.wallMillis + 1, surface: .mcp, action: "update_task",
                                  ok: true, code: "x", message: "y", durationMillis: 12,
                                  client: Key.Client(name: "claude-code", version: "2.1.290"), host: nil)
        #expect(fine.code == nil && fine.message == nil)
        let page = try await log.page(accountID: accountID, keyID: keyIDs[0], limit: 50, after: nil)
        #expect(page.entries == [fine, failed])
        #expect(page.next == nil)
        #expect(fine.id.hasPrefix("act_") && Identifier.isWellFormed(Substring(fine.id), prefix: "act_"))
    }

    /// The entries of one loop turn, in one transaction: each kept with its own fields, and
    /// each key trimmed once to its newest 200 (a batch larger than that keeps its newest).
    @Test func aBatchOfSeveralKeysIsWrittenTogetherAndTrimmedPerKey() async throws {
        let now = test.clock.wallMillis
        for n in 0..<198 { try await append(0, at: now - 1000 + Int64(n)) }
        var batch: [ActivityLog.Pending] = []
        for n in 0..<10 {
            batch.append(ActivityLog.Pending(keyID: keyIDs[n % 2], at: now + Int64(n), surface: .rest, action: "GET /v1/tasks",
                                             ok: n != 3, code: "not_found", message: "Task not found.", durationMillis: Int64(n),
                                             client: nil, host: nil))
        }
        let written = try await log.appendAll(batch)
        #expect(written.count == 10 && Set(written.map(\.id)).count == 10)
        #expect(written[3].code == "not_found" && written[2].code == nil)
        let first = try await all(0)
        #expect(first.count == ActivityLog.keptPerKey)
        #expect(Array(first.prefix(5)) == written.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).reversed())
        #expect(first.last?.at == now - 1000 + 3)  // 198 + 5 entries: the 3 oldest went
        #expect(try await all(1) == written.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).reversed())
        #expect(try await log.appendAll([]).isEmpty)
    }

    /// A large batch (a busy server's 20 ms): every entry is kept, each with its own fields,
    /// in its own key's log.
    @Test func aLargeBatchKeepsEveryEntryWithItsOwnFields() async throws {
        let now = test.clock.wallMillis
        let count = 75
        var batch: [ActivityLog.Pending] = []
        for n in 0..<count {
            batch.append(ActivityLog.Pending(
                keyID: keyIDs[n % 2], at: now + Int64(n), surface: n % 3 == 0 ? .mcp : .rest, action: "action \(n)",
                ok: n % 5 != 0, code: "code \(n)", message: "message \(n)", durationMillis: Int64(n),
                client: n % 3 == 0 ? Key.Client(name: "client \(n)", version: "\(n).0") : nil, host: n % 4 == 0 ? "host \(n)" : nil))
        }
        let written = try await log.appendAll(batch)
        #expect(written.count == count)
        for key in 0..<2 {
            let expected = written.enumerated().filter { $0.offset % 2 == key }.map(\.element).reversed()
            #expect(try await all(key) == Array(expected))
        }
        #expect(written[5].code == "code 5" && written[5].message == "message 5" && written[6].code == nil)
        #expect(written[9].client == Key.Client(name: "client 9", version: "9.0") && written[8].host == "host 8")
    }

    /// The Entry object of `rest-api.md#entry`, an MCP one with its client.
    @Test func anEntryWritesTheContractsObject() throws {
        let entry = ActivityEntry(id: "act_01jb2q7m3kabcdefghjkmnpqrs", keyID: keyIDs[0], at: 1_760_112_300_900, surface: .mcp,
                                  action: "update_task", ok: false, code: "not_found", message: "Task not found.",
                                  durationMillis: 4, client: Key.Client(name: "claude-code", version: "2.1.290"), host: "studio-mac")
        var writer = JSONWriter()
        entry.write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"id":"act_01jb2q7m3kabcdefghjkmnpqrs","at":1760112300.9,"#
            + #""surface":"mcp","action":"update_task","status":"error","code":"not_found","message":"Task not found.","#
            + #""duration_ms":4,"client":{"name":"claude-code","version":"2.1.290"},"host":"studio-mac"}"#)
    }

    @Test func pagesGoNewestFirstAndVisitEachEntryOnceAlsoWithinOneMillisecond() async throws {
        var made: [ActivityEntry] = []
        for index in 0..<30 {
            // Three entries in each millisecond: the ID orders them.
            made.append(try await append(at: 1_760_000_000_000 + Int64(index / 3)))
        }
        test.clock.wallMillis = 1_760_000_000_100
        let expected = made.sorted { ($0.at, $0.id) > ($1.at, $1.id) }
        #expect(try await all() == expected)
        let first = try await log.page(accountID: accountID, keyID: keyIDs[0], limit: 30, after: nil)
        #expect(first.entries == expected && first.next == nil)
    }

    @Test func aKeyKeepsItsNewest200AndTheOtherKeyIsUntouched() async throws {
        let other = try await append(1)
        for index in 0..<205 { try await append(at: test.clock.wallMillis + Int64(index)) }
        test.clock.advance(millis: 1000)
        let kept = try await all()
        #expect(kept.count == 200)
        #expect(kept.last?.at == Int64(1_760_000_000_005))
        #expect(try await all(1) == [other])
        #expect(try test.rowCount("activity", where: "key_id = '\(keyIDs[0])'") <= 200 + ActivityTrims.slack)
    }

    /// `ActivityTrims`: the trim runs in steps, so a key may hold up to 100 entries past its
    /// newest 200 on disk, but a page never shows one of them.
    @Test func theLogHoldsAtMost300AndShowsExactlyTheNewest200() async throws {
        let start = test.clock.wallMillis
        var made: [ActivityEntry] = []
        for index in 0..<520 {
            made.append(try await append(at: start + Int64(index)))
            if index % 37 == 0 || index >= 195 && index <= 205 {
                test.clock.wallMillis = start + Int64(index) + 1
                #expect(try await all() == Array(made.suffix(ActivityLog.keptPerKey).reversed()), "after \(index + 1)")
            }
            #expect(try test.rowCount("activity") <= ActivityLog.keptPerKey + ActivityTrims.slack)
        }
        #expect(try test.rowCount("activity") > ActivityLog.keptPerKey)
    }

    /// A log longer than 200 that this process did not write (an earlier process's, between
    /// its trims): its pages show the newest 200, and its next entry trims it.
    @Test func aLogLongerThan200FromBeforeShowsItsNewest200AndIsTrimmedAtItsNextEntry() async throws {
        let start = test.clock.wallMillis
        try test.store.write { db in
            for index in 0..<260 {
                try db.execute("""
                    INSERT INTO activity (id, key_id, at, surface, action, status, duration_ms) \
                    VALUES ('act_\(index)', '\(keyIDs[0])', \(start + Int64(index)), 'rest', 'GET /v1/tasks', 'ok', 0)
                    """)
            }
        }
        test.clock.wallMillis = start + 300
        let shown = try await all()
        #expect(shown.count == 200 && shown.first?.at == start + 259 && shown.last?.at == start + 60)
        let page = try await log.page(accountID: accountID, keyID: keyIDs[0], limit: 100, after: nil)
        #expect(page.entries.count == 100 && page.next != nil)
        try await append(at: start + 300)
        #expect(try test.rowCount("activity") == 200)
        #expect(try await all().last?.at == start + 61)
    }

    @Test func anotherAccountsKeyOrADeletedKeyIsNotFound() async throws {
        try await append()
        let (stranger, _) = try await test.accounts.create()
        await #expect(throws: DomainError.notFound("Key not found.")) {
            try await log.page(accountID: stranger.id, keyID: keyIDs[0], limit: 50, after: nil)
        }
        try await test.keys.delete(accountID: accountID, keyID: keyIDs[0])
        await #expect(throws: DomainError.notFound("Key not found.")) {
            try await log.page(accountID: accountID, keyID: keyIDs[0], limit: 50, after: nil)
        }
    }

    @Test func entriesOlderThanSevenDaysAreLeftOut() async throws {
        let start = test.clock.wallMillis
        for index in 0..<5 { try await append(at: start + Int64(index)) }
        let recent = try await append(at: start + ActivityLog.keptMillis)
        test.clock.wallMillis = start + ActivityLog.keptMillis + 3
        // Entries at start+3 and start+4 are still within 7 days.
        #expect(try await all().count == 3)
        #expect(try await all().first == recent)
    }

    @Test(arguments: ["", "1", "1.", ".act_01jb2q7m3k0000000000000000", "x.act_01jb2q7m3kabcdefghjkmnpqrs",
                      "1760000000000.key_01jb2q7m3kabcdefghjkmnpqrs", "1760000000000.act_01jb2q7m3k",
                      "-1.act_01jb2q7m3kabcdefghjkmnpqrs", "1234567890123456.act_01jb2q7m3kabcdefghjkmnpqrs"])
    func aCursorThisServerDidNotWriteIsRefused(text: String) {
        #expect(ActivityCursor(text: text) == nil)
    }

    @Test func aCursorReadsBackWhatItWrote() {
        let cursor = ActivityCursor(at: 1_760_000_000_123, id: "act_01jb2q7m3kabcdefghjkmnpqrs")
        #expect(ActivityCursor(text: cursor.text) == cursor)
    }
}
