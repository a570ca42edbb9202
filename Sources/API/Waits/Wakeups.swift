import EventLoop
import Relaydeck

/// The parked calls, by what wakes them and by who sent them. A change announces its topics
/// after it committed; the waiters look again from the loop, after the request that made the
/// change is answered, so a `poll` never runs inside another request's transaction. A
/// committed `key.deleted` or `account.deleted` ends the calls of that key or account the
/// same way, and a `key.updated` that took a scope away those of its calls that need it. Who
/// may park one more is `admission` (`WaitAdmission.swift`). Loop thread only.
final class Wakeups {
    private let loop: EventLoop
    private var waiters: [WakeTopic: [ObjectIdentifier: Waiter]] = [:]
    private var pending: [WakeTopic] = []
    private var scheduled = false
    /// Revoked calls waiting for `drain` to answer them.
    private var revoked: [Waiter] = []
    /// Told of each call a lost scope ends (`/metrics`).
    var scopeRefused: ((Scope, ActivityEntry.Surface) -> Void)?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Every parked call, topics or not.
    private var active: [ObjectIdentifier: Waiter] = [:]
    /// The calls of each key, and of each account (its keys' calls too).
    private var byKey: [String: [ObjectIdentifier: Waiter]] = [:]
    private var byAccount: [String: [ObjectIdentifier: Waiter]] = [:]
    /// The calls an account's own credentials sent, by account.
    private var countByAccount: [String: Int] = [:]

    /// Parked calls waiting now.
    var count: Int { active.count }

    /// Parked calls of one key waiting now.
    func count(of keyID: String) -> Int { byKey[keyID]?.count ?? 0 }

    /// Parked calls the account's token and web sessions sent, waiting now.
    func count(ofAccount accountID: String) -> Int { countByAccount[accountID] ?? 0 }

    func add(_ waiter: Waiter) {
        let id = ObjectIdentifier(waiter)
        guard active.updateValue(waiter, forKey: id) == nil else { return }
        if let principal = waiter.principal {
            byAccount[principal.accountID, default: [:]][id] = waiter
            switch principal {
            case .key(let use): byKey[use.keyID, default: [:]][id] = waiter
            case .account(let accountID): countByAccount[accountID, default: 0] += 1
            }
        }
        for topic in waiter.wait.topics {
            waiters[topic, default: [:]][id] = waiter
        }
    }

    func remove(_ waiter: Waiter) {
        let id = ObjectIdentifier(waiter)
        guard active.removeValue(forKey: id) != nil else { return }
        for topic in waiter.wait.topics {
            waiters[topic]?.removeValue(forKey: id)
            if waiters[topic]?.isEmpty == true { waiters[topic] = nil }
        }
        if let principal = waiter.principal {
            Self.drop(id, principal.accountID, from: &byAccount)
            switch principal {
            case .key(let use): Self.drop(id, use.keyID, from: &byKey)
            case .account(let accountID):
                countByAccount[accountID, default: 1] -= 1
                if countByAccount[accountID] == 0 { countByAccount[accountID] = nil }
            }
        }
    }

    private static func drop(_ id: ObjectIdentifier, _ name: String, from table: inout [String: [ObjectIdentifier: Waiter]]) {
        table[name]?.removeValue(forKey: id)
        if table[name]?.isEmpty == true { table[name] = nil }
    }

    /// A committed change (the hub publishes only those): the topics it wakes look again, a
    /// deleted key's or account's calls end with `401`, and a key's calls whose wait needs a
    /// scope the key no longer holds end with `insufficient_scope`, soon.
    func changed(_ change: Change) {
        switch change.event {
        case .keyDeleted(let keyID): revoke(byKey[keyID], .credentialGone)
        case .accountDeleted: revoke(byAccount[change.accountID], .credentialGone)
        case .keyUpdated(let key): revokeScopes(of: key)
        default: break
        }
        for topic in WakeTopic.topics(for: change) { wake(topic) }
    }

    /// A revoked OAuth grant: the calls its tokens parked end with `401`, as a deleted key's
    /// do. Called after the revocation's write; answered from the loop's `wake` phase, after
    /// the turn's COMMIT.
    func grantRevoked(keyID: String, grantID: String) {
        revoke(byKey[keyID]?.filter { $0.value.principal?.grant?.grantID == grantID }, .credentialGone)
    }

    /// Ends the key's calls whose wait needs a scope `key` does not hold now.
    private func revokeScopes(of key: Key) {
        guard let calls = byKey[key.id] else { return }
        let lost = calls.filter { _, waiter in waiter.wait.scope.map { !key.scopes.contains($0) } ?? false }
        for waiter in lost.values {
            guard let scope = waiter.wait.scope else { continue }
            scopeRefused?(scope, waiter.record.surface)
            waiter.revoke(.scopeRemoved(.insufficientScope(scope, for: "this waiting call")))
            revoked.append(waiter)
        }
        if !lost.isEmpty { schedule() }
    }

    /// Something under `topic` changed: its waiters look again, soon.
    func wake(_ topic: WakeTopic) {
        guard waiters[topic] != nil else { return }
        pending.append(topic)
        schedule()
    }

    /// Marked at once, so no wake-up or timer of this turn answers them otherwise; answered
    /// from the loop like a wake-up, never inside the deleting request's COMMIT.
    private func revoke(_ calls: [ObjectIdentifier: Waiter]?, _ why: Waiter.Revocation) {
        guard let calls else { return }
        for waiter in calls.values {
            waiter.revoke(why)
            revoked.append(waiter)
        }
        schedule()
    }

    private func schedule() {
        guard !scheduled else { return }
        scheduled = true
        loop.atEndOfTurn(.wake) { [weak self] in self?.drain() }
    }

    private func drain() {
        scheduled = false
        let ending = revoked
        revoked = []
        for waiter in ending { waiter.end() }
        let topics = pending
        pending = []
        for topic in topics {
            // A copy: an answered waiter leaves the table while we go through it.
            for waiter in Array(waiters[topic]?.values ?? [:].values) {
                waiter.poll()
            }
        }
    }
}
