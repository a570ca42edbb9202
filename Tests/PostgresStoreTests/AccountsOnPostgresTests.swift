import Clock
import PostgresStore
@testable import Relaydeck
import SQLite
import Testing

/// `Accounts` on a real PostgreSQL database (`PostgresSessionStore` over the filled store's
/// copy: acc_1 made with an attested key, with keys, web sign-in rows and an OAuth grant),
/// with the behaviour its SQLite tests check: made at the clock's time, made with an attested
/// key and a second account with it refused, settings changed, deleted with everything its
/// deletion removes at once, `account.deleted` published after the COMMIT and its
/// credentials refused at once.
@Suite struct AccountsOnPostgresTests {
    /// The domain's services that record changes, over the filled store's copy, with a hub
    /// whose subscriber keeps each change published, and the gate's view through the store's
    /// credential cache.
    final class Services {
        let db: PostgresSessionStoreTests.Filled
        let clock = ManualClock(wallMillis: 1_760_000_000_000)
        let random = SystemRandom()
        let hub = EventHub()
        let accounts: Accounts
        let keys: Keys
        let inbox: Inbox
        let tasks: Tasks
        let questions: Questions
        let authenticator: Authenticator
        /// Every change the hub published, in order.
        private(set) var published: [Change] = []

        init() throws {
            db = try PostgresSessionStoreTests.Filled()
            accounts = Accounts(store: db.store, clock: clock, random: random, hub: hub)
            keys = Keys(store: db.store, clock: clock, random: random, hub: hub)
            inbox = Inbox(store: db.store, clock: clock, random: random, hub: hub)
            tasks = Tasks(store: db.store, clock: clock, random: random, hub: hub, inbox: inbox)
            questions = Questions(store: db.store, clock: clock, random: random, hub: hub, inbox: inbox)
            authenticator = Authenticator(store: db.store, credentials: db.store.credentials, clock: clock)
            hub.subscribe { [unowned self] change in published.append(change) }
        }

        func run<T>(_ body: @escaping () async throws -> T) throws -> T {
            try db.run(body)
        }

        /// The changes published since `count` were.
        func published(since count: Int) -> [Change] {
            Array(published[count...])
        }

        func count(_ sql: String) throws -> Int64 {
            try db.count(sql)
        }

        /// What the gate finds for a secret now.
        func principal(_ secret: Secret) throws -> Principal? {
            try run { try await self.authenticator.authenticate(Substring(secret.text)) }
        }

        /// A new account with `count` keys labelled `key 1`, `key 2`, ...
        func account(withKeys count: Int) throws -> (account: Account, token: Secret, keys: [(key: Key, secret: Secret)]) {
            try run {
                let (account, token) = try await self.accounts.create()
                var made: [(key: Key, secret: Secret)] = []
                for index in 0..<count {
                    made.append(try await self.keys.create(accountID: account.id, label: Services.checked("key \(index + 1)")))
                }
                return (account, token, made)
            }
        }

        /// `text` through `rule`, as the API hands it to the domain.
        static func checked(_ text: String, _ rule: TextRule = .keyLabel) -> CheckedText {
            switch rule.check(text) {
            case .success(let checked): return checked
            case .failure(let problem): fatalError("not a valid text in a test: \(problem.message)")
            }
        }
    }

    static let attested = AttestedKey(keyID: [UInt8](repeating: 0xA1, count: 32),
                                      publicKey: [0x04] + [UInt8](repeating: 0xB2, count: 64), counter: 0)

    @Test func anAccountIsMadeAtTheClocksTimeWithItsOwnTokenOnPostgreSQL() throws {
        let domain = try Services()
        let (account, token) = try domain.run { try await domain.accounts.create() }
        #expect(account.createdAt == 1_760_000_000_000 && account.liveActivities)
        #expect(try domain.run { try await domain.accounts.get(account.id) } == account)
        #expect(try domain.principal(token) == .account(accountID: account.id))
        let (other, otherToken) = try domain.run { try await domain.accounts.create() }
        #expect(other.id != account.id && otherToken.text != token.text)
        #expect(try domain.run { try await domain.accounts.attestedKey(of: account.id) } == nil)
        #expect(throws: DomainError.notFound("Account not found.")) {
            try domain.run { try await domain.accounts.get("acc_2") }
        }
    }

    @Test func oneAttestedKeyMakesOneLiveAccountOnPostgreSQL() throws {
        let domain = try Services()
        let (first, _) = try domain.run { try await domain.accounts.create(attestedKey: Self.attested) }
        #expect(try domain.run { try await domain.accounts.attestedKey(of: first.id) } == Self.attested)
        #expect(throws: AttestedKeyInUse()) { try domain.run { try await domain.accounts.create(attestedKey: Self.attested) } }
        // The filled acc_1's key is in use too.
        let acc1Key = AttestedKey(keyID: [0x01, 0x02], publicKey: [0x04, 0xAA, 0xBB], counter: 7)
        #expect(try domain.run { try await domain.accounts.attestedKey(of: "acc_1") } == acc1Key)
        #expect(throws: AttestedKeyInUse()) { try domain.run { try await domain.accounts.create(attestedKey: acc1Key) } }
        #expect(try domain.count("SELECT count(*) AS n FROM accounts") == 3)
        // Once the account is deleted, its key makes a new one.
        try domain.run { try await domain.accounts.delete(first.id) }
        let (second, _) = try domain.run { try await domain.accounts.create(attestedKey: Self.attested) }
        #expect(second.id != first.id)
        #expect(try domain.run { try await domain.accounts.attestedKey(of: second.id) } == Self.attested)
        #expect(try domain.run { try await domain.accounts.attestedKey(of: first.id) } == nil)
    }

    @Test func theSettingsChangeAndAnUnknownAccountIsNotFoundOnPostgreSQL() throws {
        let domain = try Services()
        let off = try domain.run { try await domain.accounts.update("acc_1", liveActivities: false) }
        #expect(off == Account(id: "acc_1", createdAt: 1_700_000_000_000, liveActivities: false))
        #expect(try domain.run { try await domain.accounts.update("acc_1", liveActivities: nil) } == off)
        #expect(try domain.run { try await domain.accounts.get("acc_1") } == off)
        #expect(try domain.run { try await domain.accounts.update("acc_1", liveActivities: true) }.liveActivities)
        for id in ["acc_2", "acc_none"] {
            #expect(throws: DomainError.notFound("Account not found.")) {
                try domain.run { try await domain.accounts.update(id, liveActivities: false) }
            }
        }
    }

    @Test func aDeletedAccountTakesItsKeysSignInAndGrantsAndIsAnnouncedAfterItsCommitOnPostgreSQL() throws {
        let domain = try Services()
        let (account, token, keys) = try domain.account(withKeys: 2)
        #expect(try domain.principal(keys[0].secret) != nil)
        let before = domain.published.count
        domain.clock.advance(millis: 5000)
        try domain.run { try await domain.accounts.delete("acc_1") }
        #expect(domain.published(since: before) == [Change(accountID: "acc_1", event: .accountDeleted, actor: .account)])
        #expect(try domain.count("SELECT count(*) AS n FROM accounts WHERE deleted_at = 1760000005000") == 1)
        #expect(try domain.count("SELECT count(*) AS n FROM keys WHERE account_id = 'acc_1' AND deleted_at = 1760000005000") == 2)
        for table in ["web_login_links", "web_sessions", "passkeys", "oauth_grants", "oauth_codes", "oauth_access_tokens",
                      "oauth_refresh_tokens"] {
            #expect(try domain.count("SELECT count(*) AS n FROM \(table)") == 0, "\(table)")
        }
        // The rows the purge removes later are still there.
        #expect(try domain.count("SELECT count(*) AS n FROM tasks WHERE account_id = 'acc_1'") == 2)
        #expect(throws: DomainError.notFound("Account not found.")) { try domain.run { try await domain.accounts.delete("acc_1") } }
        #expect(domain.published.count == before + 1)

        // An account whose credentials the gate has cached: refused once it is deleted.
        try domain.run { try await domain.accounts.delete(account.id) }
        #expect(try domain.principal(token) == nil)
        for (_, secret) in keys { #expect(try domain.principal(secret) == nil) }
        #expect(try domain.run { try await domain.keys.list(accountID: account.id) }.isEmpty)
        #expect(throws: DomainError.notFound("Account not found.")) { try domain.run { try await domain.accounts.get(account.id) } }
    }
}
