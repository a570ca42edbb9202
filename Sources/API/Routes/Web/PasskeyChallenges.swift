import Crypto
import Relaydeck

/// The WebAuthn challenges the web routes gave out and no attempt has used yet: each works
/// once, for 5 minutes, and an attempt that fails uses it too. A registration's challenge is
/// bound to the account that asked for it; a sign-in's to no one (the passkey names its
/// account). Kept in memory on the loop thread, with SQLite's one process (with PostgreSQL the
/// nodes share `SharedChallenges`): a restart forgets them, and the page asks again. Times are the wall clock's milliseconds, so tests move them with the manual clock.
final class PasskeyChallenges {
    static let lifetimeMillis = Limits.challengeLifetimeMillis
    let capacity: Int
    private var pending: [[UInt8]: (owner: String, expiry: Int64)] = [:]

    init(capacity: Int = Limits.challengesKept) {
        self.capacity = capacity
    }

    /// 32 random bytes for `owner` (an account ID, or "" for a sign-in); nil when the book is
    /// full of challenges that have not expired.
    func issue(owner: String, random: any RandomSource, nowMillis: Int64) -> [UInt8]? {
        var challenge = [UInt8](repeating: 0, count: 32)
        challenge.withUnsafeMutableBytes { random.fill($0) }
        return issue(challenge, owner: owner, nowMillis: nowMillis) ? challenge : nil
    }

    /// Keeps `challenge` for `owner` unless the book is full of challenges that have not expired.
    func issue(_ challenge: [UInt8], owner: String, nowMillis: Int64) -> Bool {
        if pending.count >= capacity { pending = pending.filter { $0.value.expiry > nowMillis } }
        guard pending.count < capacity else { return false }
        pending[challenge] = (owner, nowMillis + Self.lifetimeMillis)
        return true
    }

    /// Uses `challenge` up, and says whether it was given to `owner` and has not expired.
    func redeem(_ challenge: [UInt8], owner: String, nowMillis: Int64) -> Bool {
        guard let entry = pending.removeValue(forKey: challenge) else { return false }
        return entry.owner == owner && nowMillis < entry.expiry
    }

    var count: Int { pending.count }
}

extension PasskeyChallenges: OneTimeChallenges {
    func use(_ challenge: [UInt8], owner: String, nowMillis: Int64) -> Bool {
        redeem(challenge, owner: owner, nowMillis: nowMillis)
    }
}
