import Crypto
import Relaydeck

/// The challenges `POST /v1/attest/challenge` gave out and no attempt has used yet
/// (`app-integrity.md#get-a-challenge`): each works once, for 300 seconds, and an attempt
/// that fails uses it too. Kept in memory on the loop thread, with SQLite's one process (with
/// PostgreSQL the nodes share `SharedChallenges`): a restart forgets them, and the app asks for
/// a new one. Times are the wall clock's, in milliseconds, so tests move them with the manual
/// clock.
final class ChallengeBook {
    static let lifetimeMillis = Limits.challengeLifetimeMillis
    /// The most challenges kept at once; a full book after a sweep refuses to give more, so a
    /// flood from many addresses cannot grow memory without bound.
    let capacity: Int
    private var expiries: [String: Int64] = [:]
    private var lastSweep: Int64?

    init(capacity: Int = Limits.challengesKept) {
        self.capacity = capacity
    }

    /// A new challenge of 32 random bytes in unpadded base64url (43 characters, safe in JSON
    /// and URLs); nil when the book is full.
    func issue(random: any RandomSource, nowMillis: Int64) -> String? {
        let challenge = Self.text(random: random)
        return keep(challenge, nowMillis: nowMillis) ? challenge : nil
    }

    /// 32 random bytes in unpadded base64url.
    static func text(random: any RandomSource) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeMutableBytes { random.fill($0) }
        return Base64.encode(bytes, urlSafe: true, padded: false)
    }

    /// Keeps `challenge` unless the book is full of live ones (swept at most once a second).
    func keep(_ challenge: String, nowMillis: Int64) -> Bool {
        if expiries.count >= capacity, lastSweep.map({ nowMillis - $0 >= 1000 }) ?? true {
            sweep(nowMillis: nowMillis)
        }
        guard expiries.count < capacity else { return false }
        add(challenge, nowMillis: nowMillis)
        return true
    }

    /// Keeps `challenge` for its lifetime from `nowMillis` (tests use it to give out the
    /// challenge a recorded attestation was made for).
    func add(_ challenge: String, nowMillis: Int64) {
        expiries[challenge] = nowMillis + Self.lifetimeMillis
    }

    /// Uses `challenge` up, and says whether it was known and not expired.
    func redeem(_ challenge: String, nowMillis: Int64) -> Bool {
        guard let expiry = expiries.removeValue(forKey: challenge) else { return false }
        return nowMillis < expiry
    }

    /// Forgets the expired challenges.
    func sweep(nowMillis: Int64) {
        lastSweep = nowMillis
        expiries = expiries.filter { $0.value > nowMillis }
    }

    var count: Int { expiries.count }
}

/// App Attest's challenge is a text; its bytes are the text's UTF-8, and it has no owner.
extension ChallengeBook: OneTimeChallenges {
    func issue(_ challenge: [UInt8], owner: String, nowMillis: Int64) -> Bool {
        keep(String(decoding: challenge, as: UTF8.self), nowMillis: nowMillis)
    }

    func use(_ challenge: [UInt8], owner: String, nowMillis: Int64) -> Bool {
        redeem(String(decoding: challenge, as: UTF8.self), nowMillis: nowMillis)
    }
}
