import Logging
import Testing

/// 2026-11-29T14:52:39.708Z
private let millis: Int64 = 1_795_963_959_708

@Suite("Log lines")
struct LogLineTests {
    @Test("a text line has its time, level, message and fields")
    func textLine() {
        let line = LogLine.render(level: .info, message: "listening", fields: ["address": "127.0.0.1:8080"], json: false, unixMillis: millis)
        #expect(line == "2026-11-29T14:52:39.708Z info listening address=127.0.0.1:8080")
    }

    @Test("for the journal a text line starts with its syslog priority and has no time", arguments: [
        (LogLevel.error, "<3>error"), (.warn, "<4>warn"), (.info, "<6>info"), (.debug, "<7>debug"),
    ])
    func journalTextLine(level: LogLevel, start: String) {
        let line = LogLine.render(level: level, message: "something happened", fields: ["error": "two words"], json: false,
                                  journal: true, unixMillis: millis)
        #expect(line == "\(start) something happened error=\"two words\"")
        #expect(!line.contains("2026"))
    }

    @Test("for the journal a JSON line is the priority and one JSON object with time and level")
    func journalJSONLine() {
        let line = LogLine.render(level: .error, message: "store failure", fields: ["path": "/x"], json: true, journal: true, unixMillis: millis)
        #expect(line == "<3>{\"time\":\"2026-11-29T14:52:39.708Z\",\"level\":\"error\",\"msg\":\"store failure\",\"path\":\"/x\"}")
    }

    @Test("a JSON line elsewhere has no prefix")
    func jsonLine() {
        let line = LogLine.render(level: .warn, message: "m", fields: [:], json: true, unixMillis: millis)
        #expect(line == "{\"time\":\"2026-11-29T14:52:39.708Z\",\"level\":\"warn\",\"msg\":\"m\"}")
    }

    @Test("a newline in a message cannot forge a second journal entry with its own priority")
    func newlineInJournalLine() {
        let line = LogLine.render(level: .info, message: "a\n<3>forged", fields: [:], json: false, journal: true, unixMillis: millis)
        #expect(line == "<6>info a <3>forged")
    }

    @Test("JOURNAL_STREAM counts only when it names stderr's own device and inode", arguments: [
        ("8:12345", true), ("8:12346", false), ("9:12345", false), ("8:", false), (":12345", false),
        ("8:12345:1", false), ("8", false), ("", false), ("+8:12345", false), ("8: 12345", false),
    ])
    func journalStreamValue(value: String, matches: Bool) {
        #expect(JournalStream.matches(value, device: 8, inode: 12345) == matches)
    }

    @Test("no JOURNAL_STREAM, no journal")
    func noJournalStream() {
        #expect(!JournalStream.isStandardError(nil))
    }
}
