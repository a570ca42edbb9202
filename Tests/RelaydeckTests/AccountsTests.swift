import Clock
@testable import Relaydeck
import Testing

@Suite struct AccountsTests {
    @Test(arguments: StoreKind.allCases)
    func createMakesALiveAccountAtTheClockTime(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        test.clock.wallMillis = 1_760_112_000_412
        let (account, token) = try await test.accounts.create()
        #expect(Identifier.isWellFormed(Substring(account.id), prefix: "acc_"))
        #expect(account.createdAt == 1_760_112_000_412)
        #expect(account.liveActivities)
        #expect(Secret.kind(of: Substring(token.text)) == .accountToken)
        #expect(try await test.accounts.get(account.id) == account)
    }

    @Test(arguments: StoreKind.allCases)
    func eachAccountHasItsOwnIDAndToken(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let first = try await test.accounts.create()
        let second = try await test.accounts.create()
        #expect(first.account.id != second.account.id)
        #expect(first.token.text != second.token.text)
    }

    @Test(arguments: StoreKind.allCases)
    func getOfAnUnknownAccountIsNotFound(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        await #expect(throws: DomainError.notFound("Account not found.")) {
            try await test.accounts.get("acc_01arz3ndektsv4rrffq69g5fav")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func updateChangesLiveActivitiesAndKeepsIt(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        let updated = try await test.accounts.update(account.id, liveActivities: false)
        #expect(updated == Account(id: account.id, createdAt: account.createdAt, liveActivities: false))
        #expect(try await test.accounts.get(account.id).liveActivities == false)
        #expect(try await test.accounts.update(account.id, liveActivities: true).liveActivities == true)
    }

    @Test(arguments: StoreKind.allCases)
    func updateWithNothingChangesNothing(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        _ = try await test.accounts.update(account.id, liveActivities: false)
        let same = try await test.accounts.update(account.id, liveActivities: nil)
        #expect(same == Account(id: account.id, createdAt: account.createdAt, liveActivities: false))
    }

    @Test(arguments: StoreKind.allCases)
    func updateOfAnUnknownAccountIsNotFound(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        await #expect(throws: DomainError.notFound("Account not found.")) {
            try await test.accounts.update("acc_01arz3ndektsv4rrffq69g5fav", liveActivities: false)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteHidesTheAccountAndMarksItsKeysDeleted(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, keys) = try await test.account(withKeys: 3)
        let (other, _, _) = try await test.account(withKeys: 2)
        test.clock.advance(millis: 5_000)
        try await test.accounts.delete(account.id)

        await #expect(throws: DomainError.notFound("Account not found.")) { try await test.accounts.get(account.id) }
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == nil)
        for (_, secret) in keys {
            #expect(try await test.authenticator.authenticate(Substring(secret.text)) == nil)
        }
        #expect(try await test.keys.list(accountID: account.id).isEmpty)
        let deletedAt = test.clock.wallMillis
        #expect(try test.rowCount("accounts", where: "deleted_at = \(deletedAt)") == 1)
        #expect(try test.rowCount("keys", where: "deleted_at = \(deletedAt)") == 3)
        // The other account is untouched.
        #expect(try await test.accounts.get(other.id) == other)
        #expect(try await test.keys.list(accountID: other.id).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteTwiceIsNotFound(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, _) = try await test.accounts.create()
        try await test.accounts.delete(account.id)
        await #expect(throws: DomainError.notFound("Account not found.")) { try await test.accounts.delete(account.id) }
        await #expect(throws: DomainError.notFound("Account not found.")) {
            try await test.accounts.update(account.id, liveActivities: false)
        }
    }
}
