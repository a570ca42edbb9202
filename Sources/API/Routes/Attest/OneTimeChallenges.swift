import Relaydeck

/// A book of one-time challenges as the routes use it (App Attest's, `ChallengeBook`; the
/// passkeys', `PasskeyChallenges`): each challenge works once, for
/// `Limits.challengeLifetimeMillis`, an attempt that fails uses it too, and a full book gives
/// no more. With SQLite one process keeps each book in memory; with PostgreSQL the nodes share
/// them in the database (`SharedChallenges`), chosen by the store (`Services.challengeBook`).
protocol OneTimeChallenges: AnyObject {
    /// Keeps `challenge` (its bytes as the client sends them back: App Attest's text in UTF-8)
    /// for `owner` (an account ID, or "" for anyone); false when the book is full.
    func issue(_ challenge: [UInt8], owner: String, nowMillis: Int64) async throws -> Bool
    /// Uses `challenge` up, and says whether it was given to `owner` and has not expired.
    func use(_ challenge: [UInt8], owner: String, nowMillis: Int64) async throws -> Bool
}

extension OneTimeChallenges {
    /// 32 new random bytes kept for `owner`; nil when the book is full.
    func issue(owner: String, random: any RandomSource, nowMillis: Int64) async throws -> [UInt8]? {
        var challenge = [UInt8](repeating: 0, count: 32)
        challenge.withUnsafeMutableBytes { random.fill($0) }
        return try await issue(challenge, owner: owner, nowMillis: nowMillis) ? challenge : nil
    }
}

extension SharedChallenges: OneTimeChallenges {}

extension Services {
    /// The book of `kind`: in memory with SQLite (`local`), in the database the nodes share
    /// with PostgreSQL.
    func challengeBook(_ kind: SharedChallenges.Kind, local: @autoclosure () -> any OneTimeChallenges) -> any OneTimeChallenges {
        guard sqlite == nil else { return local() }
        return SharedChallenges(store: store, kind: kind, capacity: Limits.challengesKept,
                                lifetimeMillis: Limits.challengeLifetimeMillis)
    }
}
