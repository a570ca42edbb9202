import SQLite
import Testing

/// The checkpoint histogram's counts: each duration in the first bucket whose bound it does
/// not pass, the rest above the last bound.
@Suite struct CheckpointTimesTests {
    @Test func eachDurationFallsInTheFirstBucketItDoesNotPass() {
        var times = CheckpointTimes()
        for micros in [0, 1_000, 1_001, 99_000, 10_000_000, 10_000_001, 60_000_000] { times.record(micros: micros) }
        times.recordFailure()
        // Bounds: 1 ms, 5, 25, 100, 250 ms, 1 s, 2.5 s, 10 s, then above.
        #expect(times.counts == [2, 1, 0, 1, 0, 0, 0, 1, 2])
        #expect(times.count == 7)
        #expect(times.sumMicros == 1_000 + 1_001 + 99_000 + 10_000_000 + 10_000_001 + 60_000_000)
        #expect(times.failures == 1)
    }
}
