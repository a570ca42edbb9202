/// Where a page of an activity log ends: the `at` and `id` of its last entry. The next page
/// starts after it in the order (`at` descending, then `id` descending). Entries never
/// change once written, so this keyset visits each entry that is still kept exactly once.
/// Clients see it as opaque text (`rest-api.md#activity-log`: "The `next_cursor` of the
/// previous page").
public struct ActivityCursor: Sendable, Equatable {
    public let at: Int64
    public let id: String

    public init(at: Int64, id: String) {
        self.at = at
        self.id = id
    }

    public static let problem = "Must be the next_cursor of an earlier page."

    /// `1760112300900.act_01jb...`: the milliseconds, a dot, the ID.
    public var text: String { "\(at).\(id)" }

    /// The cursor in `text`, or nil when it is not one this server wrote.
    public init?(text: String) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, (1...15).contains(parts[0].utf8.count),
              parts[0].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let at = Int64(parts[0]), Identifier.isWellFormed(parts[1], prefix: "act_") else { return nil }
        self.at = at
        id = String(parts[1])
    }
}
