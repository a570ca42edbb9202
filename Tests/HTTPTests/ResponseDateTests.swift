import Testing
import HTTP

@Suite struct ResponseDateTests {
    @Test(arguments: [
        (Int64(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (1_709_208_000, "Thu, 29 Feb 2024 12:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (951_868_800, "Wed, 01 Mar 2000 00:00:00 GMT"),
        (2_147_483_648, "Tue, 19 Jan 2038 03:14:08 GMT"),
        (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
        (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
    ])
    func formatsIMFFixdate(seconds: Int64, expected: String) {
        let date = HTTPDate(unixSeconds: seconds)
        #expect(date.string == expected)
        #expect(date.bytes == Array(expected.utf8))
        #expect(date.unixSeconds == seconds)
    }

    @Test func clampsToFourDigitYears() {
        #expect(HTTPDate(unixSeconds: .max).string == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate(unixSeconds: .min).string == "Sat, 01 Jan 0000 00:00:00 GMT")
    }

    @Test func updateReformatsOnlyWhenTheSecondChanges() {
        var date = HTTPDate(unixSeconds: 784_111_777)
        date.update(unixSeconds: 784_111_777)
        #expect(date.string == "Sun, 06 Nov 1994 08:49:37 GMT")
        date.update(unixSeconds: 784_111_778)
        #expect(date.string == "Sun, 06 Nov 1994 08:49:38 GMT")
        #expect(date.unixSeconds == 784_111_778)
    }
}
