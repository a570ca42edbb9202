import EventLoop
import Logging
import Relaydeck

/// Writes the activity entry of a finished request (`rest-api.md#activity-log`), from its
/// record, after the answer went out: the one place that decides which requests have an
/// entry, so no route writes one itself.
///
/// Entries are written together, in one transaction: at most `flushDelay` after the first
/// one waiting, at once when `flushCount` wait, before the log is read (`ActivityRoutes`)
/// and at the stop. A key's requests then cost one commit per batch instead of one each
/// (each commit writes its pages to the WAL again; this was most of the time of a `GET` with
/// an API key), and under load a batch holds hundreds of entries, not the few of one loop
/// turn. The contract allows the delay: "an entry can be absent for a moment after its
/// request" (`rest-api.md#what-has-an-entry`). A crash loses the entries of the last
/// `flushDelay`, never an answer: they are written after their answers in any case.
final class ActivityRecorder {
    let log: ActivityLog
    private let loop: EventLoop
    private var pending: [ActivityLog.Pending] = []
    private var timer: LoopTimer?
    private var flushQueued = false

    /// How long an entry may wait for its batch.
    static let flushDelay = TimeSpan.milliseconds(20)
    /// A batch this large is written when the loop turn ends, without waiting for the timer.
    static let flushCount = 512

    init(log: ActivityLog, loop: EventLoop) {
        self.log = log
        self.loop = loop
    }

    /// Queues the entry of `record` if it has one.
    func record(_ record: RequestRecord) {
        guard let keyID = Self.keyID(of: record), let action = record.action else { return }
        if timer == nil {
            timer = loop.schedule(after: Self.flushDelay) { [weak self] in
                self?.timer = nil
                self?.flush()
            }
        }
        pending.append(ActivityLog.Pending(
            keyID: keyID, at: record.receivedAtWallMillis, surface: record.surface, action: action,
            ok: (200...299).contains(record.status) && record.code == nil, code: record.code,
            message: record.message.map(Self.bounded), durationMillis: Self.millis(record.duration),
            client: record.client, host: record.host))
        if pending.count >= Self.flushCount && !flushQueued {
            flushQueued = true
            loop.atEndOfTurn(.record) { [weak self] in self?.flush() }
        }
    }

    /// Writes the queued entries, as a task on the loop (with SQLite it has ended when this
    /// returns). A store that cannot take them now loses them, never an answer, which is
    /// already out; the warning names no value.
    func flush() {
        let batch = takeQueued()
        guard !batch.isEmpty else { return }
        loop.startTask { [self] in await write(batch) }
    }

    /// The same, awaited, and after the batches sent before it ended (on PostgreSQL each went
    /// on a connection of its own, maybe still in flight): a read of the log comes after it and
    /// sees every entry queued before.
    func flushed() async {
        let batch = takeQueued()
        if !batch.isEmpty { await write(batch) }
        await log.writesEnded()
    }

    private func takeQueued() -> [ActivityLog.Pending] {
        flushQueued = false
        if let timer {
            loop.cancel(timer)
            self.timer = nil
        }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        return batch
    }

    private func write(_ batch: [ActivityLog.Pending]) async {
        do {
            try await log.appendAll(batch)
        } catch StoreError.unavailable {
            // The store logs its own failure, once in 10 seconds; one line per request
            // would flood the log while it lasts.
        } catch {
            Log.warn("could not write activity entries", ["count": String(batch.count), "error": String(describing: error)])
        }
    }

    /// The most characters of a message the log keeps. Messages are the server's own short
    /// text, but a `422` names the fields the client sent, and an unknown field's name can
    /// be as long as the body: 200 entries of a key must not each hold a megabyte.
    static let maxMessageCharacters = 300

    static func bounded(_ message: String) -> String {
        // `prefix` walks at most that many characters, never the whole text.
        guard message.prefix(maxMessageCharacters).endIndex < message.endIndex else { return message }
        return String(message.prefix(maxMessageCharacters - 1)) + "…"
    }

    /// The key whose log gets `record`, or nil for a request that has no entry
    /// (`rest-api.md#what-has-an-entry`):
    /// - an account token, no valid credential, or a refusal before the credential was read
    ///   (an unknown path, a body that is not JSON, `405`): no key principal was recorded;
    /// - `/health` and the other routes open to anyone: no credential is read at all;
    /// - the event stream, and a call that only waited;
    /// - a waiting call whose client went away: like a call that only waited it got no
    ///   result, and it got no answer either, so an entry would report a status that no
    ///   client ever saw.
    static func keyID(of record: RequestRecord) -> String? {
        guard case .key(let use)? = record.principal, record.status != 0, record.hasEntry else { return nil }
        switch record.ending {
        case .answered: return use.keyID
        case .onlyWaited, .clientWentAway, .streamEnded: return nil
        }
    }

    /// Whole milliseconds, to the nearest: a quick request shows `0`, a wait of 4 s shows
    /// about `4000` (`rest-api.md#entry`: "For a call that waits, it has the time of the wait").
    static func millis(_ span: TimeSpan) -> Int64 {
        (max(0, span.nanoseconds) + 500_000) / 1_000_000
    }
}
