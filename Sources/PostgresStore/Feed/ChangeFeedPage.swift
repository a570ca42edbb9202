import Relaydeck

/// One row of the feed: its number, the node that wrote it, and the change, or why it could
/// not be read (a form of a newer binary, during a rolling upgrade).
public struct ChangeFeedEntry {
    public let seq: Int64
    public let node: String
    public let change: Result<Change, ChangeFeedCodingError>
}

/// What `ChangeFeed.read` found after a number: the rows in order, and whether some row after
/// that number is gone. A reader that missed rows cannot know which accounts they were of, so
/// it must treat every stream as behind (resync), then go on from `last`.
public struct ChangeFeedPage {
    /// In the order of their numbers, which is the order of their commits.
    public let entries: [ChangeFeedEntry]
    /// Some row between the number read after and the first entry (or the head, when there
    /// are no entries) is gone: pruned while the reader was away, or the number read after is
    /// past the head (the database's feed is not the one the reader had read).
    public let missed: Bool
    /// The last number handed out when the page was read.
    public let head: Int64

    /// The number to read after next: the last entry's, else the head when rows were missed,
    /// else the number read after.
    public let last: Int64

    /// A row of `ChangeFeed.SQL.read`: the head, and a feed row or NULLs when there is none.
    struct Row {
        let head: Int64
        let seq: Int64?
        let node: String?
        let change: String?
    }

    init(after: Int64, rows: [Row]) {
        head = rows.first?.head ?? 0
        var entries: [ChangeFeedEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            guard let seq = row.seq, let node = row.node, let text = row.change else { continue }
            let change = Result { () throws(ChangeFeedCodingError) -> Change in try Change(feedBytes: Array(text.utf8)) }
            entries.append(ChangeFeedEntry(seq: seq, node: node, change: change))
        }
        self.entries = entries
        // The numbers have no holes (`PostgresSchema.severalNodesMigration`): the first row after
        // `after` is `after + 1` unless rows were pruned.
        if let first = entries.first {
            missed = first.seq != after + 1
        } else {
            missed = head != after
        }
        last = entries.last?.seq ?? (missed ? head : after)
    }
}
