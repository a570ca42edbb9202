import Clock
@testable import Relaydeck
import Testing

@Suite struct AccountsTests {
    @Test(arguments: StoreKind.allCases)
    func createMakesALiveAccountAtTheClockTime(kind: StoreKind) throws {
        let test = try TestStore(kind)
        test.clock.wallMillis = 1_760_112_000_412
        let (account, token) = try test.accounts.create()
        #expect(Identifier.isWellFormed(Substring(account.id), prefix: "acc_"))
        #expect(account.createdAt == 1_760_112_000_412)
        #expect(account.liveActivities)
        #expect(Secret.kind(of: Substring(token.text)) == .accountToken)
        #expect(try test.accounts.get(account.id) == account)
    }

    @Test(arguments: StoreKind.allCases)
    func eachAccountHasItsOwnIDAndToken(kind: StoreKind) throws {
        let test = try TestStore(kind)
        let first = try test.accounts.create()
        let second = try test.accounts.create()
        #expect(first.account.id != second.account.id)
        #expect(first.token.text != second.token.text)
    }

    @Test(arguments: StoreKind.allCases)
    func getOfAnUnknownAccountIsNotFound(kind: StoreKind) throws {
        let test = try TestStore(kind)
        #expect(throws: DomainError.notFound("Account not found.")) {
            try test.accounts.get("acc_01arz3ndektsv4rrffq69g5fav")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func updateChangesLiveActivitiesAndKeepsIt(kind: StoreKind) throws {
        let test = try TestStore(kind)
        let (account, _) = try test.accounts.create()
        let updated = try test.accounts.update(account.id, liveActivities: false)
        #expect(updated == Account(id: account.id, createdAt: account.createdAt, liveActivities: false))
        #expect(try test.accounts.get(account.id).liveActivities == false)
        #expect(try test.accounts.update(account.id, liveActivities: true).liveActivities == true)
    }

    @Test(arguments: StoreKind.allCases)
    func updateWithNothingChangesNothing(kind: StoreKind) throws {
        let test = try TestStore(kind)
        let (account, _) = try test.accounts.create()
        _ = try test.accounts.update(account.id, liveActivities: false)
        let same = try test.accounts.update(account.id, liveActivities: nil)
        #expect(same == Account(id: account.id, createdAt: account.createdAt, liveActivities: false))
    }

    @Test(arguments: StoreKind.allCases)
    func updateOfAnUnknownAccountIsNotFound(kind: StoreKind) throws {
        let test = try TestStore(kind)
        #expect(throws: DomainError.notFound("Account not found.")) {
            try test.accounts.update("acc_01arz3ndektsv4rrffq69g5fav", liveActivities: false)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteHidesTheAccountAndMarksItsKeysDeleted(kind: StoreKind) async throws {
        let test = try TestStore(kind)
        let (account, token, keys) = try test.account(withKeys: 3)
        let (other, _, _) = try test.account(withKeys: 2)
        test.clock.advance(millis: 5_000)
        try test.accounts.delete(account.id)

        #expect(throws: DomainError.notFound("Account not found.")) { try test.accounts.get(account.id) }
        #expect(try await test.authenticator.authenticate(Substring(token.text)) == nil)
        for (_, secret) in keys {
            #expect(try await test.authenticator.authenticate(Substring(secret.text)) == nil)
        }
        #expect(try test.keys.list(accountID: account.id).isEmpty)
        let deletedAt = test.clock.wallMillis
        #expect(try test.rowCount("accounts", where: "deleted_at = \(deletedAt)") == 1)
        #expect(try test.rowCount("keys", where: "deleted_at = \(deletedAt)") == 3)
        // The other account is untouched.
        #expect(try test.accounts.get(other.id) == other)
        #expect(try test.keys.list(accountID: other.id).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteTwiceIsNotFound(kind: StoreKind) throws {
        let test = try TestStore(kind)
        let (account, _) = try test.accounts.create()
        try test.accounts.delete(account.id)
        #expect(throws: DomainError.notFound("Account not found.")) { try test.accounts.delete(account.id) }
        #expect(throws: DomainError.notFound("Account not found.")) {
            try test.accounts.update(account.id, liveActivities: false)
        }
    }
}
