import Clock
import Testing
@testable import HTTPClient

@Suite struct CacheLifetimeTests {
    /// 1,760,000,000 is Thu, 09 Oct 2025 08:53:20 GMT.
    static let now: Int64 = 1_760_000_000

    func keep(_ fields: [(String, String)], maximum: TimeSpan = .seconds(86_400)) -> TimeSpan {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name, value) }
        return CacheLifetime(headers, nowUnixSeconds: Self.now, maximum: maximum).span
    }

    @Test func maxAgeSaysHowLongInSeconds() {
        #expect(keep([("Cache-Control", "public, max-age=300")]) == .seconds(300))
        #expect(keep([("cache-control", "Max-Age=\"60\", private")]) == .seconds(60))
        #expect(keep([("Cache-Control", "max-age=0")]) == .zero)
    }

    @Test func noStoreAndNoCacheMeanNotKeptWhateverElseIsSaid() {
        #expect(keep([("Cache-Control", "max-age=300, no-store")]) == .zero)
        #expect(keep([("Cache-Control", "max-age=300"), ("Cache-Control", "no-cache")]) == .zero)
        #expect(keep([("Cache-Control", "NO-STORE"), ("Expires", "Thu, 09 Oct 2025 09:53:20 GMT")]) == .zero)
    }

    @Test func maxAgeWinsOverExpires() {
        #expect(keep([("Expires", "Thu, 09 Oct 2025 09:53:20 GMT"), ("Cache-Control", "max-age=120")]) == .seconds(120))
    }

    @Test func expiresCountsFromTheAnswersDateOrFromNow() {
        #expect(keep([("Date", "Thu, 09 Oct 2025 08:00:00 GMT"), ("Expires", "Thu, 09 Oct 2025 08:10:00 GMT")]) == .seconds(600))
        #expect(keep([("Expires", "Thu, 09 Oct 2025 08:54:20 GMT")]) == .seconds(60), "no Date: now")
        #expect(keep([("Expires", "Thu, 09 Oct 2025 08:00:00 GMT")]) == .zero, "already past")
        #expect(keep([("Expires", "0")]) == .zero, "not a date: expired")
    }

    @Test func anAnswerThatSaysNothingOrNonsenseIsNotKept() {
        #expect(keep([]) == .zero)
        #expect(keep([("Cache-Control", "public")]) == .zero)
        #expect(keep([("Cache-Control", "max-age=soon")]) == .zero)
        #expect(keep([("Cache-Control", "max-age=-5")]) == .zero)
        #expect(keep([("Cache-Control", "max-age")]) == .zero)
    }

    @Test func theFirstMaxAgeCounts() {
        #expect(keep([("Cache-Control", "max-age=30, max-age=9000")]) == .seconds(30))
    }

    @Test func theAgeACacheGaveIsSubtracted() {
        #expect(keep([("Cache-Control", "max-age=300"), ("Age", "100")]) == .seconds(200))
        #expect(keep([("Cache-Control", "max-age=300"), ("Age", "400")]) == .zero)
    }

    @Test func nothingIsKeptLongerThanTheCallersMaximum() {
        #expect(keep([("Cache-Control", "max-age=999999999999")], maximum: .seconds(3600)) == .seconds(3600))
        #expect(keep([("Expires", "Fri, 31 Dec 9999 23:59:59 GMT")], maximum: .seconds(3600)) == .seconds(3600))
        #expect(keep([("Cache-Control", "max-age=10")], maximum: .milliseconds(1500)) == .milliseconds(1500))
        #expect(keep([("Cache-Control", "max-age=10")], maximum: .zero) == .zero)
    }
}

@Suite struct HTTPDateParserTests {
    @Test func theThreeFormsOfRFC9110AreRead() {
        #expect(HTTPDateParser.unixSeconds("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDateParser.unixSeconds("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDateParser.unixSeconds("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(HTTPDateParser.unixSeconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDateParser.unixSeconds("Tue, 29 Feb 2028 12:00:00 GMT") == 1_835_438_400)
    }

    @Test(arguments: ["", "0", "-1", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 8:49:37 GMT",
                      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                      "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT"])
    func textThatIsNoHTTPDateIsNone(_ text: String) {
        #expect(HTTPDateParser.unixSeconds(text) == nil)
    }

    @Test func theDayCountIsTheInverseOfTheCivilDate() {
        for days: Int64 in [-719_468, -1, 0, 1, 11_016, 20_000, 2_932_896] {
            let date = CivilDate.from(days: days)
            #expect(CivilDate.days(year: date.year, month: date.month, day: date.day) == days, "\(date)")
        }
    }
}
