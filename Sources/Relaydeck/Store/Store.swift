import Clock
import Logging
import SQLite

/// The one SQLite connection, with what the server needs around it: the schema, and
/// recovery. When the file cannot be opened or read, or stays locked, every operation
/// answers `StoreError.unavailable` and the store tries again (at most once a second) until it
/// works: the server never needs a restart for a store that comes back.
public final class Store {
    public let path: String
    private let options: Database.Options
    private var database: Database?
    private var lastOpenAttempt: Int64?
    private var lastFailureLog: Int64?
    private var failing = false
    private var lastHealthyCheck: Int64?
    /// For retries and the health answer's lifetime (monotonic); injected for tests.
    private let clock: any Clock
    /// Called after the store opened again following a failure (resume deferred work).
    public var onRecovered: (() -> Void)?
    /// Who the credentials in use belong to; see `CredentialCache`.
    public let credentials = CredentialCache()
    /// How much text an account may keep (`ACCOUNT_STORAGE_LIMIT`); the services that write
    /// text ask it inside their transaction.
    public var quota = StorageQuota()
    /// Runs work once the current loop turn's events are handled, before the loop sleeps
    /// (the server queues it in the loop's `TurnPhase.endRead`). While set, the reads of one turn share
    /// one read transaction, ended there: SQLite otherwise takes and drops its WAL read lock
    /// (two `fcntl` calls and a look at the WAL index) for every statement, which was a
    /// tenth of a `GET /v1/tasks/{id}`. A write first ends it, so it never works from an
    /// old snapshot, and the reads after a write see it. Nil (tests, operator commands):
    /// every statement reads on its own, as SQLite does by default.
    public var endOfTurn: ((@escaping () -> Void) -> Void)?
    /// True while the turn's read transaction is open.
    private var turnRead = false
    /// The unit of work last begun; `write` is a savepoint in it while it is open.
    private var work: UnitOfWork?
    /// The session over the open connection (`reading`, `writing`), made again for a new one.
    private var sqliteSession: SQLiteSession?
    /// Checkpoints on a thread of their own (`checkpointInBackground`); nil: SQLite's own,
    /// inside the COMMIT that crosses 1000 frames.
    private var checkpointer: Checkpointer?

    /// WAL frames after which the checkpoint thread is asked to work (SQLite's default limit).
    public static let checkpointFrames = 1000
    /// WAL frames after which the loop checkpoints itself (what the thread has not copied
    /// yet): under writes without a pause the thread never finds the WAL fully copied, which
    /// is what lets the next write start it over, so the WAL would grow without bound.
    public static let inlineCheckpointFrames = 10_000
    /// The WAL's frame count when the thread was last asked.
    private var requestedAtFrames = 0

    public static let retryAfterSeconds = 1

    public init(path: String, options: Database.Options = Database.Options(), clock: any Clock = SystemClock.shared) {
        self.path = path
        self.options = options
        self.clock = clock
    }

    /// Opens the file and brings the schema up to date. A schema newer than this binary
    /// knows throws `MigrationError.newerSchema`: that is not a passing condition, and the
    /// caller stops. Every other failure is logged and leaves the store closed, to be tried
    /// again by the next operation.
    @discardableResult
    public func open() throws(MigrationError) -> Bool {
        lastOpenAttempt = monotonicMillis
        do {
            let database = try Database(path: path, options: options)
            let applied = try Migrator.migrate(database, Schema.migrations)
            for migration in applied {
                Log.info("applied a schema migration", ["version": String(migration.version), "name": migration.name])
            }
            self.database = database
            turnRead = false
            work?.abandon()
            work = nil
            if let checkpointer {
                // Started once the file exists and has its schema; without a thread, SQLite's
                // own checkpoint stays.
                if checkpointer.start() {
                    try database.onCommit { [weak self] frames in self?.committed(walFrames: frames) }
                } else {
                    Log.warn("no thread for the store's checkpoints; commits checkpoint as SQLite does")
                    self.checkpointer = nil
                }
            }
            // A file opened again may be another file (restored, replaced): know nothing.
            credentials.removeAll()
            if failing { recovered() }
            return true
        } catch let error as MigrationError {
            if case .newerSchema = error { throw error }
            noteFailure("could not migrate the store", error.description)
        } catch let error as SQLiteError {
            noteFailure("could not open the store", error.description)
        } catch {
            noteFailure("could not open the store", String(describing: error))
        }
        return false
    }

    public var isOpen: Bool { database != nil }

    /// Runs `body` with the connection (for reads; SQLite gives each statement a consistent
    /// snapshot).
    @discardableResult
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let database = try readConnection()
        do {
            // A read that works proves little while writes may still fail (a lock held
            // elsewhere): only a write or a reopen ends a failure.
            return try body(database)
        } catch let error as SQLiteError {
            throw translate(error)
        }
    }

    /// The session over `database`, the open connection.
    func session(over database: Database) -> SQLiteSession {
        if let sqliteSession, sqliteSession.database === database { return sqliteSession }
        let session = SQLiteSession(database)
        sqliteSession = session
        return session
    }

    /// The connection for a read, in the turn's read transaction when the server shares one.
    func readConnection() throws(StoreError) -> Database {
        let database = try connection()
        // DEFERRED takes no lock yet: the first statement takes the read lock, and it is
        // kept until the turn ends. Where no transaction can begin (one of ours is still
        // open after SQLite rolled it back on an I/O error), the read goes on without.
        if let endOfTurn, !turnRead, !database.isInTransaction, (try? database.begin(.deferred)) != nil {
            turnRead = true
            endOfTurn { [weak self] in self?.endTurnRead() }
        }
        return database
    }

    /// Runs `body` in one IMMEDIATE transaction: everything or nothing is written, and a
    /// return means committed. Inside an open unit of work (the loop turn's) it is a
    /// savepoint of it instead: a throw undoes only `body`, a return keeps it for the COMMIT.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try perform { work, _ in try body(work.database) }
    }

    /// `body` in a savepoint of the open unit of work, or in a unit of its own that is
    /// committed when `body` returns. `body` gets the depth its changes belong to.
    private func perform<T>(_ body: (UnitOfWork, Int) throws -> T) throws -> T {
        if let work, work.isOpen {
            do {
                let result = try work.savepoint { try body(work, work.depth) }
                writeWorked()
                return result
            } catch let error as SQLiteError {
                throw translate(error)
            }
        }
        let work = try beginOwnWork()
        let result: T
        do {
            result = try body(work, 0)
        } catch {
            throw abandon(work, error)
        }
        try work.commit()
        return result
    }

    /// The same for a body that awaits (`writing`).
    func performing<T>(_ body: (UnitOfWork, Int) async throws -> T) async throws -> T {
        if let work, work.isOpen {
            do {
                let result = try await work.savepoint { try await body(work, work.depth) }
                writeWorked()
                return result
            } catch let error as SQLiteError {
                throw translate(error)
            }
        }
        let work = try beginOwnWork()
        let result: T
        do {
            result = try await body(work, 0)
        } catch {
            throw abandon(work, error)
        }
        try work.commit()
        return result
    }

    /// A unit of work of a write's own (no turn's is open): BEGIN IMMEDIATE.
    private func beginOwnWork() throws(StoreError) -> UnitOfWork {
        let database = try connection()
        endTurnRead()
        do {
            let work = try UnitOfWork(store: self, database: database)
            self.work = work
            return work
        } catch {
            throw translate(error)
        }
    }

    /// Rolls back a write's own unit whose body threw; the error to throw.
    private func abandon(_ work: UnitOfWork, _ error: any Error) -> any Error {
        work.rollBack()
        if let error = error as? SQLiteError { return translate(error) }
        return error
    }

    /// Takes the write lock without waiting, so the loop never sleeps in SQLite's busy
    /// handler (the connection's busy timeout is 0 in the server), and returns the unit of
    /// work it opened: `write` calls are savepoints in it until its `commit` or `rollBack`.
    /// Nil: another connection holds the lock (a backup, an operator's `sqlite3`); try again
    /// later. A busy lock is no failure of the store: it is not logged and does not end a
    /// good health answer.
    public func tryBeginWork() throws(StoreError) -> UnitOfWork? {
        if let work, work.isOpen { throw StoreError.failure("a unit of work begun inside another") }
        let database = try connection()
        endTurnRead()
        do {
            let work = try UnitOfWork(store: self, database: database)
            self.work = work
            return work
        } catch where error.primaryCode == 5 /* SQLITE_BUSY */ {
            return nil
        } catch {
            throw translate(error)
        }
    }

    /// True when the store answers a read that touches the file. A good answer holds for
    /// `healthTTLMillis`: a monitor (or a load balancer) asking many times a second costs one
    /// check, not a locked read each time (two `fcntl` calls in WAL mode). Any failure of any
    /// operation ends it at once.
    public func isHealthy() -> Bool {
        let now = monotonicMillis
        if !failing, let last = lastHealthyCheck, now - last < Self.healthTTLMillis {
            return true
        }
        do {
            try read { try $0.check() }
            // While writes fail (a lock held elsewhere), ask again each time.
            lastHealthyCheck = failing ? nil : now
            return true
        } catch {
            lastHealthyCheck = nil
            return false
        }
    }

    public static let healthTTLMillis: Int64 = 1000

    private var monotonicMillis: Int64 { clock.now.nanoseconds / 1_000_000 }

    /// Moves the WAL checkpoints to a thread of their own (the server's choice): the loop's
    /// commits only ask for one. Call before `open`, which starts the thread (if none can be
    /// made, the store checkpoints as SQLite does by default).
    public func checkpointInBackground() {
        let path = self.path
        checkpointer = Checkpointer(path: path) { failure in
            Log.warn("could not checkpoint the store", ["path": path, "error": failure])
        }
    }

    /// After each commit of this connection: the thread is asked once per `checkpointFrames`
    /// new frames (each of its passes ends in two `fsync`s, so it must not run after every
    /// commit of a busy server).
    private func committed(walFrames frames: Int) {
        walFrames = frames
        if frames < requestedAtFrames { requestedAtFrames = 0 }  // the WAL started over
        if frames >= Self.inlineCheckpointFrames {
            let started = clock.now
            do throws(SQLiteError) {
                try database?.checkpoint(.passive)
                loopCheckpointTimes.record(micros: Int((clock.now - started).nanoseconds / 1000))
            } catch where error.primaryCode == 5 /* SQLITE_BUSY */ {
                // The thread is checkpointing (one checkpointer at a time): it does the work.
            } catch {
                loopCheckpointTimes.recordFailure()
            }
            requestedAtFrames = 0
        } else if frames >= requestedAtFrames + Self.checkpointFrames {
            requestedAtFrames = frames
            checkpointer?.request()
        }
    }

    /// The frames in the WAL file after this connection's last commit (`/metrics`); a
    /// checkpoint that lets the log start over shows at the next commit.
    public private(set) var walFrames = 0

    /// Checkpoints finished by the thread (tests).
    public var backgroundCheckpoints: Int { checkpointer?.completedCount ?? 0 }

    /// How long the checkpoint thread's checkpoints took; empty without the thread.
    var threadCheckpointTimes: CheckpointTimes { checkpointer?.checkpointTimes ?? CheckpointTimes() }

    /// How long the checkpoints the loop ran itself took (past `inlineCheckpointFrames`,
    /// when the thread falls behind), and how many failed.
    private(set) var loopCheckpointTimes = CheckpointTimes()

    /// Ends the turn's read transaction, if one is open: at the end of the turn, and before
    /// anything writes. A read transaction has nothing to commit; COMMIT only drops the lock.
    public func endTurnRead() {
        guard turnRead else { return }
        turnRead = false
        guard let database else { return }
        do {
            try database.commit()
        } catch {
            // SQLite ended it already (an I/O error in a read rolls back); nothing is lost.
            database.rollBackAll()
        }
    }

    /// For the stop: empties the WAL into the database file and closes.
    public func close() {
        endTurnRead()
        // Closing the connection rolls back what it did not commit.
        work?.abandon()
        work = nil
        // Its checkpoint (if one runs) finishes first; the TRUNCATE below then empties the WAL.
        checkpointer?.stop()
        checkpointer = nil
        guard let database else { return }
        do {
            try database.checkpoint(.truncate)
        } catch {
            Log.warn("could not checkpoint the store at stop", ["error": error.description])
        }
        database.close()
        self.database = nil
        sqliteSession = nil
    }

    /// A write (or its COMMIT) went through: that ends a failure, if one lasted.
    func writeWorked() {
        if failing { recovered() }
    }

    /// The first success after a failure (a reopened file, a released lock, freed space).
    private func recovered() {
        failing = false
        lastFailureLog = nil
        Log.info("the store is available again")
        onRecovered?()
    }

    private func connection() throws(StoreError) -> Database {
        if let database { return database }
        let now = monotonicMillis
        if let last = lastOpenAttempt, now - last < 1000 {
            throw StoreError.unavailable(retryAfterSeconds: Self.retryAfterSeconds)
        }
        do {
            try open()
        } catch {
            noteFailure("the store was written by a newer relaydeckd", error.description)
        }
        guard let database else { throw StoreError.unavailable(retryAfterSeconds: Self.retryAfterSeconds) }
        return database
    }

    func translate(_ error: SQLiteError) -> StoreError {
        guard error.isUnavailable else { return .failure(error.description) }
        noteFailure("the store is unavailable", error.description)
        if error.needsNewConnection {
            turnRead = false
            // Its transaction went with the connection: the turn's COMMIT answers `503`.
            work?.abandon()
            work = nil
            database?.close()
            database = nil
            sqliteSession = nil
            lastOpenAttempt = monotonicMillis
        }
        return .unavailable(retryAfterSeconds: Self.retryAfterSeconds)
    }

    /// Logs a failure, at most once in 10 seconds while the store stays down.
    private func noteFailure(_ message: String, _ detail: String) {
        failing = true
        lastHealthyCheck = nil
        let now = monotonicMillis
        if let last = lastFailureLog, now - last < 10_000 { return }
        lastFailureLog = now
        Log.error(message, ["path": path, "error": detail])
    }
}
