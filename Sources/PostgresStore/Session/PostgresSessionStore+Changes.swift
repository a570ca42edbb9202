import Relaydeck
import SQLite

extension PostgresSessionStore {
    /// A connection is up (the store makes one again by itself when it is lost).
    public func isHealthy() -> Bool { isAvailable }

    /// A write that records changes: planned through its session (their pushes are rows of
    /// the same transaction), written to the change feed for the other nodes, and published
    /// to `hub` once the COMMIT succeeded, in the order recorded; nothing is published or fed
    /// when it rolls back. The recording writes of one `account` that come while one runs
    /// share its transaction (`CommitGroup`): each in a savepoint of its own, then one feed row
    /// and one COMMIT. A write of no one account, or started inside another's body, is a
    /// transaction of its own.
    @discardableResult
    public func writing<T>(hub: EventHub, account: String?, _ body: (any StoreSession, ChangeRecorder) async throws -> T) async throws -> T {
        guard let account, !CommitGroup.insideMember else { return try await alone(hub: hub, body) }
        let write = beginWrite()
        defer { endWrite(write) }
        let group = await joinGroup(account)
        let result: Result<T, any Error>
        if let link = group.link, group.broken == nil {
            result = await CommitGroup.$insideMember.withValue(true) {
                await member(of: group, on: link, hub: hub, body)
            }
        } else {
            result = .failure(group.broken ?? Self.unavailable)
        }
        if group.next() { await commit(group) }
        let value = try result.get()
        try await group.committed().get()
        return value
    }

    /// A recording write as a transaction of its own, its feed row in the COMMIT's batch.
    private func alone<T>(hub: EventHub, _ body: (any StoreSession, ChangeRecorder) async throws -> T) async throws -> T {
        let kept = KeptChanges()
        let result = try await transaction { session in
            let value = try await body(session, ChangeRecorder(session: session, hub: hub, keeper: kept, depth: 0))
            // For the other nodes, in the order of the commits (`ChangeFeed.append` holds the
            // feed's head from its statement to the COMMIT, which goes in the same batch).
            guard let feedNode else { return (value, nil) }
            return (value, try ChangeFeed.appending(kept.changes, node: feedNode))
        }
        kept.publish()
        return result
    }

    /// The account's open group once this member's turn came; or a new one, whose connection
    /// and lock its first member waits for, holding the turn (the writes that come meanwhile
    /// join it and wait in its line).
    ///
    /// A group's first statement takes the account's advisory lock (to its COMMIT): the groups
    /// of one account, on this node and every other, run one after the other. Each holds the
    /// rows its members locked, in the members' order, until its COMMIT; two such groups side
    /// by side would each wait for a row the other holds (a deadlock PostgreSQL breaks only
    /// after `deadlock_timeout`, a second by default: under load, every few writes). Waiting
    /// for the lock, a group holds nothing else. Groups of different accounts change no row in
    /// common (the feed's head is taken in the COMMIT's batch), so they run side by side.
    private func joinGroup(_ account: String) async -> CommitGroup {
        if let open = openGroups[account], open.isOpen {
            await open.turn()
            return open
        }
        let group = CommitGroup(account: account)
        openGroups[account] = group
        await group.turn()
        guard let link = await take() else {
            group.broken = Self.unavailable
            return group
        }
        group.link = link
        do {
            try await link.session.begin()
            try await link.session.run(Self.lockAccount, [.text(account)])
        } catch {
            group.broken = mapped(error, on: link)
        }
        return group
    }

    /// The advisory lock of an account's groups, in a key space of its own (two 32-bit keys:
    /// "rd" and the hash of the account's ID; the migrator's lock is a 64-bit key). Two
    /// accounts whose hashes meet only wait for each other's groups.
    static let lockAccount = "SELECT pg_advisory_xact_lock(29284, hashtext($1))"

    /// One member's body in a savepoint of its own: released and its changes kept for the
    /// group when it returns, rolled back alone when it throws (unless the connection went,
    /// or the rollback failed: then the group is broken).
    private func member<T>(of group: CommitGroup, on link: PostgresLink, hub: EventHub,
                           _ body: (any StoreSession, ChangeRecorder) async throws -> T) async -> Result<T, any Error> {
        let session = link.session
        let changes = KeptChanges()
        do {
            try await session.savepoint()
            let value = try await body(session, ChangeRecorder(session: session, hub: hub, keeper: changes, depth: 1))
            while session.savepointDepth > 0 { try await session.releaseSavepoint() }
            group.succeeded(with: changes)
            return .success(value)
        } catch {
            let failure = mapped(error, on: link)
            guard !link.isEnded else {
                group.broken = Self.unavailable
                return .failure(failure)
            }
            do {
                while session.savepointDepth > 0 { try await session.rollbackToSavepoint() }
            } catch {
                group.broken = mapped(error, on: link)
            }
            return .failure(failure)
        }
    }

    /// The group's feed row and COMMIT (a ROLLBACK when it is broken or no member returned),
    /// its connection handed over, its outcome to every member that waits, and its changes
    /// published after a COMMIT, in the order the members made them.
    private func commit(_ group: CommitGroup) async {
        if openGroups[group.account] === group { openGroups[group.account] = nil }
        guard let link = group.link else {
            group.finish(.failure(group.broken ?? Self.unavailable))
            return
        }
        defer { handOver(link) }
        let session = link.session
        if group.broken != nil || group.succeeded == 0 {
            try? await session.rollback()
            group.finish(group.broken.map { .failure($0) } ?? .success(()))
            return
        }
        do {
            // For the other nodes, in the order of the commits (`ChangeFeed.append` holds the
            // feed's head from its statement to the COMMIT, which goes in the same batch).
            if let feedNode, let last = try ChangeFeed.appending(group.kept.changes, node: feedNode) {
                try await session.commit(after: last.sql, last.values)
            } else {
                try await session.commit()
            }
        } catch {
            // A failed feed row leaves the transaction open; a failed COMMIT ended it (and the
            // session refuses this ROLLBACK).
            try? await session.rollback()
            group.finish(.failure(mapped(error, on: link)))
            return
        }
        group.finish(.success(()))
        group.kept.publish()
    }
}
