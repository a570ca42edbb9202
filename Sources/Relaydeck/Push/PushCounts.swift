/// How the pushes sent so far ended, for `/metrics` (`relaydeck_pushes_total{service, kind,
/// outcome}`): one counter per push service, kind and outcome. Each service brings its own
/// fixed list of outcome words when it is added (APNs: `sent`, its documented reasons,
/// `other`, `unreachable`); a kind or an outcome outside the lists counts as `other`, so the
/// series stay bounded by the lists whatever a service answers. No token, device or task
/// is a label. Loop thread only.
public final class PushCounts {
    /// APNs's kinds: the `apns-push-type` values the planner writes (`push.md`), then `other`.
    public static let kinds = ["alert", "background", "liveactivity", "widgets", "other"]
    /// Web Push's kinds: what a message is about (`WebPushJob.Kind`), then `other`.
    public static let webPushKinds = WebPushJob.Kind.allCases.map(\.rawValue) + ["other"]

    /// One service's counters: what its sender counts into.
    public struct Service {
        fileprivate let counts: PushCounts
        fileprivate let index: Int

        /// Counts one push of `kind` (its `apns-push-type`, or a Web Push job's kind) that ended
        /// with `outcome`.
        public func count(kind: String, outcome: String) {
            counts.count(service: index, kind: kind, outcome: outcome)
        }
    }

    /// One series: its labels and its count.
    public struct Sample: Equatable, Sendable {
        public let service: String
        public let kind: String
        public let outcome: String
        public let count: Int
    }

    private struct Table {
        let name: String
        let kinds: [String]
        let kindSlots: [String: Int]
        let outcomes: [String]
        let slots: [String: Int]
        let other: Int
        /// kinds × outcomes, flat.
        var counts: [Int]
    }

    private var tables: [Table] = []

    public init() {}

    /// Adds a service (`apns`; Web Push joins with its own words) and the outcome words it
    /// may count; `other` is added when the list lacks it.
    public func service(_ name: String, kinds: [String] = PushCounts.kinds, outcomes: [String]) -> Service {
        let words = outcomes.contains("other") ? outcomes : outcomes + ["other"]
        let kinds = kinds.contains("other") ? kinds : kinds + ["other"]
        let slots = Dictionary(words.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let kindSlots = Dictionary(kinds.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        tables.append(Table(name: name, kinds: kinds, kindSlots: kindSlots, outcomes: words, slots: slots,
                            other: slots["other"]!, counts: [Int](repeating: 0, count: kinds.count * words.count)))
        return Service(counts: self, index: tables.count - 1)
    }

    fileprivate func count(service: Int, kind: String, outcome: String) {
        let kindSlot = tables[service].kindSlots[kind] ?? tables[service].kinds.count - 1
        let outcomeSlot = tables[service].slots[outcome] ?? tables[service].other
        tables[service].counts[kindSlot * tables[service].outcomes.count + outcomeSlot] += 1
    }

    /// The counters that moved, by service in the order they were added, then kind, then
    /// outcome in the service's order; a combination never counted has no series.
    public var samples: [Sample] {
        var samples: [Sample] = []
        for table in tables {
            for (kindSlot, kind) in table.kinds.enumerated() {
                for (outcomeSlot, outcome) in table.outcomes.enumerated() {
                    let count = table.counts[kindSlot * table.outcomes.count + outcomeSlot]
                    if count > 0 { samples.append(Sample(service: table.name, kind: kind, outcome: outcome, count: count)) }
                }
            }
        }
        return samples
    }
}
