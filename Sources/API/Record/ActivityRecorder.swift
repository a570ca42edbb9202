import EventLoop
import Logging
import Relaydeck

/// Writes the activity entry of a finished request (`rest-api.md#activity-log`), from its
/// record, after the answer went out: the one place that decides which requests have an
/// entry, so no route writes one itself.
struct ActivityRecorder {
    let log: ActivityLog

    /// Writes the entry of `record` if it has one. A store that cannot take it now loses
    /// this entry, never the answer, which is already out; the warning names no value.
    func record(_ record: RequestRecord) {
        guard let keyID = Self.keyID(of: record), let action = record.action else { return }
        do {
            try log.append(
                keyID: keyID, at: record.receivedAtWallMillis, surface: record.surface, action: action,
                ok: (200...299).contains(record.status) && record.code == nil, code: record.code, message: record.message.map(Self.bounded),
                durationMillis: Self.millis(record.duration), client: record.client, host: record.host)
        } catch StoreError.unavailable {
            // The store logs its own failure, once in 10 seconds; one line per request
            // would flood the log while it lasts.
        } catch {
            Log.warn("could not write an activity entry", ["action": action, "error": String(describing: error)])
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
