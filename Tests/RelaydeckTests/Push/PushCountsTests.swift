@testable import Relaydeck
import Testing

/// The push counters of `/metrics`: by service, kind and outcome, bounded by fixed lists.
@Suite struct PushCountsTests {
    @Test func pushesAreCountedByServiceKindAndOutcomeAndOnlyCountedSeriesShow() {
        let counts = PushCounts()
        let apns = counts.service("apns", outcomes: ["sent", "Unregistered", "other", "unreachable"])
        apns.count(kind: "alert", outcome: "sent")
        apns.count(kind: "alert", outcome: "sent")
        apns.count(kind: "widgets", outcome: "Unregistered")
        apns.count(kind: "background", outcome: "unreachable")
        #expect(counts.samples == [
            PushCounts.Sample(service: "apns", kind: "alert", outcome: "sent", count: 2),
            PushCounts.Sample(service: "apns", kind: "background", outcome: "unreachable", count: 1),
            PushCounts.Sample(service: "apns", kind: "widgets", outcome: "Unregistered", count: 1),
        ])
    }

    @Test func aKindOrOutcomeOutsideTheListsIsOther() {
        let counts = PushCounts()
        let apns = counts.service("apns", outcomes: ["sent"])
        for number in 0..<100 {
            apns.count(kind: "kind_\(number)", outcome: "dev_\(number)")
        }
        apns.count(kind: "liveactivity", outcome: "sent")
        #expect(counts.samples == [
            PushCounts.Sample(service: "apns", kind: "liveactivity", outcome: "sent", count: 1),
            PushCounts.Sample(service: "apns", kind: "other", outcome: "other", count: 100),
        ])
    }

    @Test func eachServiceKeepsItsOwnWords() {
        let counts = PushCounts()
        let apns = counts.service("apns", outcomes: ["sent", "Unregistered"])
        let second = counts.service("second", outcomes: ["sent", "410"])
        apns.count(kind: "alert", outcome: "410")
        second.count(kind: "alert", outcome: "410")
        #expect(counts.samples == [
            PushCounts.Sample(service: "apns", kind: "alert", outcome: "other", count: 1),
            PushCounts.Sample(service: "second", kind: "alert", outcome: "410", count: 1),
        ])
    }
}
