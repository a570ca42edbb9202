@testable import Relaydeck
import Testing

/// `Scope` and `ScopeSet`: the names clients use, the bits the store keeps, one order.
@Suite struct ScopeSetTests {
    @Test func theScopesAreTheSixOfTheIssueWithTheirStoredBits() {
        #expect(Scope.allCases.map(\.rawValue) == ["tasks:read", "tasks:write", "questions", "notify", "messages", "inbox"])
        // Stored on disk (migration 12): these numbers never change.
        #expect(Scope.allCases.map(\.bit) == [1, 2, 4, 8, 16, 32])
        #expect(ScopeSet.all.bits == 63)
        for scope in Scope.allCases { #expect(!scope.explanation.isEmpty && scope.explanation.hasSuffix(".")) }
    }

    @Test func aSetListsItsScopesInTheCatalogueOrderWhateverOrderTheyCameIn() {
        let set = ScopeSet([.inbox, .tasksRead, .notify, .tasksRead])
        #expect(set.names == ["tasks:read", "notify", "inbox"])
        #expect(set.bits == 1 | 8 | 32)
        #expect(set.contains(.notify) && !set.contains(.tasksWrite))
    }

    @Test func storedBitsThatNoScopeHasAreRefused() {
        #expect(ScopeSet(bits: 0)?.isEmpty == true)
        #expect(ScopeSet(bits: 63) == .all)
        #expect(ScopeSet(bits: 64) == nil)
        #expect(ScopeSet(bits: -1) == nil)
        #expect(ScopeSet(bits: 1 << 40 | 1) == nil)
    }

    @Test func aGrantActingAsAKeyGetsNoMoreThanTheKeyHolds() {
        let key = ScopeSet([.tasksRead, .tasksWrite, .inbox])
        let grant = ScopeSet([.tasksRead, .notify])
        #expect(key.intersection(grant) == ScopeSet([.tasksRead]))
        #expect(key.subtracting(grant) == ScopeSet([.tasksWrite, .inbox]))
    }
}
