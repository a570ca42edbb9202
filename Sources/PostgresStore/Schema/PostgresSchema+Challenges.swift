/// The one-time challenges of App Attest and the passkeys (`SharedChallenges`), which only
/// PostgreSQL keeps: one SQLite file is one process, whose books are in its memory. With
/// several nodes a challenge given by one must work once on any of them.
///
/// A row is the SHA-256 of the challenge (the database never holds one that works), its book
/// (`attest` or `passkey`, each with its own capacity), the account it was given to ("" for
/// anyone) and its expiry in wall-clock milliseconds. The index serves the sweep of a book's
/// expired rows and the count of its live ones. UNLOGGED, as the books in memory forget with a
/// restart: a crash of the database forgets them and the client asks again, and a challenge
/// is worth no WAL flush.
extension PostgresSchema {
    static let challengesMigration = PostgresMigration(version: 18, name: "shared challenges", statements: [
        """
        CREATE UNLOGGED TABLE challenges (
            hash BYTEA PRIMARY KEY CHECK (octet_length(hash) = 32),
            kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('attest', 'passkey')),
            owner TEXT COLLATE "C" NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX challenges_by_expiry ON challenges(kind, expires_at)",
    ])
}
