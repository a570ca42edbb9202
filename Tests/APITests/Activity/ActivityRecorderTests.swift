@testable import API
import Clock
import Testing

/// The log's bounds on what a client can make long.
@Suite struct ActivityRecorderTests {
    @Test func aLongMessageIsCutTo300Characters() {
        let long = "Invalid fields: " + String(repeating: "é", count: 1_000) + "."
        let cut = ActivityRecorder.bounded(long)
        #expect(cut.count == 300)
        #expect(cut.hasPrefix("Invalid fields: éé") && cut.hasSuffix("é…"))
        #expect(ActivityRecorder.bounded("Task not found.") == "Task not found.")
        let exactly = String(repeating: "é", count: 300)
        #expect(ActivityRecorder.bounded(exactly) == exactly)
    }

    @Test func durationsRoundToTheNearestMillisecond() {
        #expect(ActivityRecorder.millis(.zero) == 0)
        #expect(ActivityRecorder.millis(TimeSpan(nanoseconds: 499_999)) == 0)
        #expect(ActivityRecorder.millis(TimeSpan(nanoseconds: 500_000)) == 1)
        #expect(ActivityRecorder.millis(.milliseconds(4200)) == 4200)
        #expect(ActivityRecorder.millis(TimeSpan(nanoseconds: -5)) == 0)
    }
}
