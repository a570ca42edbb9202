/// The change feed's tables (`ChangeFeed`), which only PostgreSQL has: one SQLite file is
/// one node, and its changes never leave it.
///
/// `change_feed_head` is one row, the last sequence number handed out. An append takes its
/// numbers with `UPDATE ... RETURNING`, whose row lock is held until the transaction ends, so
/// appends serialize from that statement to their COMMIT and the numbers' order is the
/// commits' order; a rolled-back append gives its numbers back, so they have no holes. An
/// identity column would not do: it is taken at INSERT, and two transactions may commit in
/// the other order, so that a reader past the later number would never see the earlier row.
///
/// `change_feed` is one row per change: its number, its account, the node that wrote it, the
/// change in `Change.feedBytes`' form (JSON text) and when it was written, by the database's
/// clock (the nodes' may differ). Rows older than the retention go (`ChangeFeed.prune`), always
/// the lowest numbers first, so what is left is one run with no holes.
extension PostgresSchema {
    /// Migration 17, what several nodes share: the change feed, and the cells of the rate
    /// limits (`RateCells`), UNLOGGED (a count lost with a crash of the database is worth no
    /// WAL record). SQLite's 17 has no SQL, as PostgreSQL's 7 has no statement.
    static let severalNodesMigration = PostgresMigration(version: 17, name: "several nodes", statements: [
        """
        CREATE TABLE change_feed_head (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            seq BIGINT NOT NULL
        )
        """,
        "INSERT INTO change_feed_head (id, seq) VALUES (1, 0)",
        """
        CREATE TABLE change_feed (
            seq BIGINT PRIMARY KEY,
            account_id TEXT COLLATE "C" NOT NULL,
            node TEXT COLLATE "C" NOT NULL CHECK (octet_length(node) BETWEEN 1 AND 64),
            change TEXT COLLATE "C" NOT NULL,
            at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        )
        """,
        """
        CREATE UNLOGGED TABLE rate_cells (
            name TEXT COLLATE "C" NOT NULL,
            subject TEXT COLLATE "C" NOT NULL,
            tat BIGINT NOT NULL,
            PRIMARY KEY (name, subject)
        )
        """,
        "CREATE INDEX rate_cells_by_time ON rate_cells(tat)",
    ])

    /// The tables only PostgreSQL has, which neither the schema's match with SQLite's nor the
    /// copy from a SQLite file (`CopyPlan`) looks for there.
    public static let postgresOnlyTables: Set<String> = ["change_feed_head", "change_feed", "rate_cells", "challenges"]
}
