import CSQLite
import CSQLiteVFS

extension Database {
    /// How BEGIN takes its locks. The server writes with `.immediate`: the write lock is
    /// taken at BEGIN, so a busy store fails before the body runs, never at COMMIT.
    public enum TransactionKind: Sendable {
        case deferred, immediate, exclusive

        var begin: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
        }
    }

    /// BEGIN <kind>; body; COMMIT, and the value of `body`. If `body` throws or COMMIT
    /// fails, the transaction is rolled back (if SQLite has not already done so) and the
    /// error rethrown: when this returns, the changes are committed; when it throws, none
    /// of them are.
    ///
    /// Nested calls are savepoints: an inner call that throws undoes only its own changes
    /// (ROLLBACK TO) and rethrows; the outer body may catch that and go on. An inner call
    /// that returns has its changes committed only with the outermost one. The `kind` of
    /// an inner call is ignored (the outer BEGIN decided the locking).
    ///
    /// If SQLite rolled the whole transaction back on its own inside the body (it may on
    /// SQLITE_FULL, IOERR, BUSY or NOMEM) and the body swallowed that error, nothing is
    /// committed: the call throws SQLITE_ABORT_ROLLBACK instead of returning.
    ///
    /// Do not mix with BEGIN/COMMIT run through `execute`: BEGIN inside an open transaction
    /// fails with SQLite's own error.
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            return try savepoint(body)
        }
        if abandonedTransaction && isInTransaction {
            try statement("ROLLBACK").run()
        }
        abandonedTransaction = false
        try statement(kind.begin).run()
        transactionDepth = 1
        defer { transactionDepth = 0 }

        let result: T
        do {
            result = try body()
            guard isInTransaction else { throw Self.rolledBack() }
            try statement("COMMIT").run()
            // The WAL writer (`CSQLiteVFS`) wrote every frame of the COMMIT before it
            // returned: the tests' builds check it at each one.
            assert(relaydeck_wal_writer_pending_bytes() == 0, "a COMMIT left WAL bytes unwritten")
        } catch {
            rollBack()
            throw error
        }
        return result
    }

    /// BEGIN <kind>, left open: a transaction that spans more than one call (the API holds
    /// the write lock for a whole request). Calls of `transaction` inside it are savepoints.
    /// End it with `commit()` or `rollBackAll()`. With `busyTimeoutMillis` 0, a lock held
    /// elsewhere fails at once with SQLITE_BUSY, and nothing was begun.
    public func begin(_ kind: TransactionKind = .immediate) throws(SQLiteError) {
        guard transactionDepth == 0 else { throw .misuse("begin inside a transaction") }
        if abandonedTransaction && isInTransaction {
            try statement("ROLLBACK").run()
        }
        abandonedTransaction = false
        try statement(kind.begin).run()
        transactionDepth = 1
    }

    /// COMMIT of a transaction from `begin`. If it fails, everything is rolled back and the
    /// error thrown: when this returns, the changes are committed.
    public func commit() throws(SQLiteError) {
        guard transactionDepth == 1 else { throw .misuse("commit without begin") }
        defer { transactionDepth = 0 }
        do throws(SQLiteError) {
            guard isInTransaction else { throw Self.rolledBack() }
            try statement("COMMIT").run()
            // The WAL writer (`CSQLiteVFS`) wrote every frame of the COMMIT before it
            // returned: the tests' builds check it at each one.
            assert(relaydeck_wal_writer_pending_bytes() == 0, "a COMMIT left WAL bytes unwritten")
        } catch {
            rollBack()
            throw error
        }
    }

    /// Undoes a transaction from `begin`.
    public func rollBackAll() {
        guard transactionDepth == 1 else { return }
        transactionDepth = 0
        rollBack()
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = try openSavepoint()
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try releaseSavepoint(name)
            return result
        } catch {
            rollBack(to: name)
            throw error
        }
    }

    /// `body` in a savepoint of the open transaction, for a body that awaits (a service
    /// written against a store session): as a nested `transaction`, an error undoes only
    /// `body`'s changes and is rethrown. Outside a transaction it is a misuse.
    public func savepoint<T>(_ body: () async throws -> T) async throws -> T {
        guard transactionDepth > 0 else { throw SQLiteError.misuse("a savepoint outside a transaction") }
        let name = try openSavepoint()
        defer { transactionDepth -= 1 }
        do {
            let result = try await body()
            try releaseSavepoint(name)
            return result
        } catch {
            rollBack(to: name)
            throw error
        }
    }

    /// SAVEPOINT, one level deeper; its name.
    private func openSavepoint() throws(SQLiteError) -> String {
        // Outside a transaction SAVEPOINT would begin a new one, and RELEASE commit it on
        // its own: the outer transaction is gone, so its body must fail.
        guard isInTransaction else { throw Self.rolledBack() }
        let name = "relaydeck_savepoint_\(transactionDepth)"
        try statement("SAVEPOINT \(name)").run()
        transactionDepth += 1
        return name
    }

    private func releaseSavepoint(_ name: String) throws(SQLiteError) {
        guard isInTransaction else { throw Self.rolledBack() }
        try statement("RELEASE \(name)").run()
    }

    /// Rolls the whole transaction back, keeping the caller's error as the one reported.
    private func rollBack() {
        guard isInTransaction else { return }
        do {
            try statement("ROLLBACK").run()
        } catch {
            abandonedTransaction = true
        }
    }

    /// Undoes a savepoint's changes. If that fails, the inner changes must not reach a
    /// commit through an outer body that catches the error, so the whole transaction goes.
    private func rollBack(to name: String) {
        guard isInTransaction else { return }
        do {
            try statement("ROLLBACK TO \(name)").run()
            try statement("RELEASE \(name)").run()
        } catch {
            rollBack()
        }
    }

    private static func rolledBack() -> SQLiteError {
        SQLiteError(
            code: SQLITE_ABORT | (2 << 8),  // SQLITE_ABORT_ROLLBACK: the macro does not import
            message: "the transaction was rolled back by SQLite after an earlier error")
    }
}
