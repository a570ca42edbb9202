import SQLite
import Testing

@Suite struct SQLiteValueTests {
    @Test func literalsPickTheStorageClass() {
        let values: [SQLiteValue] = [1, -2.5, "text", nil, true, false]
        #expect(values == [.integer(1), .real(-2.5), .text("text"), .null, .integer(1), .integer(0)])
    }

    @Test func classesNeverCompareEqualAcrossEachOther() {
        #expect(SQLiteValue.integer(1) != .real(1))
        #expect(SQLiteValue.text("") != .blob([]))
        #expect(SQLiteValue.text("") != .null)
    }
}
