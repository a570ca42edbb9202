import CSQLite
import Glibc

/// Checkpoints a database's WAL from a thread of its own, on its own connection, when asked
/// (`request`). SQLite's automatic checkpoint runs inside the COMMIT that crosses its limit,
/// on the thread that committed: in the server that is the event loop, which then copies a
/// thousand pages into the database file and waits for two `fsync`s while every request and
/// stream waits too (the slowest wake-ups of a parked call). Here the loop only asks.
///
/// The checkpoint is PASSIVE: it copies what no reader still needs and never waits for a
/// lock, so the loop's reads and writes go on meanwhile (WAL mode allows one checkpointer
/// beside them). A failure (a full disk, a file that went away) is reported through
/// `onFailure` and tried again at the next request, on a new connection.
///
/// All of the unsafe thread code of the SQLite target is in this file.
public final class Checkpointer: @unchecked Sendable {
    public let path: String
    /// Called on the checkpoint thread with a description of a failure (never a value of
    /// the database).
    private let onFailure: @Sendable (String) -> Void

    // Guarded by `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var requested = false
    private var stopping = false
    private var ready = false
    private var completed = 0
    private var times = CheckpointTimes()

    private var thread: pthread_t?
    /// Checkpoints in a row for one request, while frames remain.
    static let passes = 8

    public init(path: String, onFailure: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.onFailure = onFailure
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        stop()
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts the thread, with its connection opened (the file must exist: after the first
    /// open of the store); false when no thread could be made (the caller checkpoints itself).
    public func start() -> Bool {
        guard thread == nil else { return true }
        let box = Unmanaged.passRetained(self).toOpaque()
        var made = pthread_t()
        // The thread starts with every signal blocked (it inherits the mask it is made
        // with), so a SIGTERM meant for the loop's signalfd is never delivered to it, which
        // would end the process without the graceful stop.
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let status = pthread_create(&made, nil, { raw in
            let checkpointer = Unmanaged<Checkpointer>.fromOpaque(raw!).takeRetainedValue()
            checkpointer.run()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Checkpointer>.fromOpaque(box).release()
            return false
        }
        thread = made
        // Its connection is open before this returns, so its descriptors are there from the
        // start (a connection closed while another of the process holds locks on the file
        // keeps its descriptor until those are released: it is opened once and kept).
        pthread_mutex_lock(mutex)
        while !ready { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
        return true
    }

    /// Asks for a checkpoint soon. Cheap: the thread is woken once however often this is
    /// called while it works.
    public func request() {
        pthread_mutex_lock(mutex)
        requested = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// How many checkpoints have finished (for tests).
    public var completedCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return completed
    }

    /// How long the thread's checkpoints took (each request's passes together), and how
    /// many failed.
    public var checkpointTimes: CheckpointTimes {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return times
    }

    /// Ends the thread after the checkpoint it may be running, and waits for it.
    public func stop() {
        guard let thread else { return }
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        self.thread = nil
    }

    private func run() {
        var database: Database?
        var lastReport: Int?
        var options = Database.Options()
        // PASSIVE never waits on a lock; the timeout only matters for opening.
        options.busyTimeoutMillis = 0
        options.cacheSizeKiB = 64
        database = try? Database(path: path, options: options)
        pthread_mutex_lock(mutex)
        ready = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        while true {
            pthread_mutex_lock(mutex)
            while !requested && !stopping {
                pthread_cond_wait(condition, mutex)
            }
            let stop = stopping
            requested = false
            pthread_mutex_unlock(mutex)
            if stop { break }
            do throws(SQLiteError) {
                if database == nil { database = try Database(path: path, options: options) }
                let started = Self.monotonicMicros()
                // Frames committed while a pass copied are left for the next pass: go on
                // until the file holds all of the WAL (then the next write starts it over
                // instead of growing it), a few passes at most under a steady write load.
                for _ in 0..<Self.passes {
                    guard let (log, copied) = try database?.checkpointFrames(.passive), copied < log else { break }
                }
                let took = Self.monotonicMicros() - started
                pthread_mutex_lock(mutex)
                completed += 1
                times.record(micros: took)
                pthread_mutex_unlock(mutex)
            } catch where error.primaryCode == SQLITE_BUSY {
                // Another checkpoint is running (an operator's, or the stop's): it does the work.
            } catch {
                pthread_mutex_lock(mutex)
                times.recordFailure()
                pthread_mutex_unlock(mutex)
                // Once a minute at most: a read-only or full disk fails every attempt.
                let now = Self.monotonicSeconds()
                if lastReport.map({ now - $0 >= 60 }) ?? true {
                    lastReport = now
                    onFailure(error.description)
                }
                database?.close()
                database = nil
            }
        }
        database?.close()
    }

    private static func monotonicMicros() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
    }

    private static func monotonicSeconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec
    }
}
