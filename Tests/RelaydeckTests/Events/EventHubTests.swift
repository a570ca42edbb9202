@testable import Relaydeck
import Testing

@Suite struct EventHubTests {
    @Test func everySubscriberGetsEveryChangeInOrder() {
        let hub = EventHub()
        var first: [String] = []
        var second: [String] = []
        hub.subscribe { first.append($0.accountID) }
        hub.subscribe { second.append($0.accountID) }
        hub.publish([change(1), change(2), change(3)])
        #expect(first == ["acc_1", "acc_2", "acc_3"])
        #expect(second == first)
    }

    /// A subscriber that publishes (a cap that deletes a task while a change is delivered)
    /// does not make the others see the changes out of order.
    @Test func aChangePublishedDuringDeliveryComesAfterTheCurrentOne() {
        let hub = EventHub()
        var seen: [String] = []
        hub.subscribe { delivered in
            if delivered.accountID == "acc_1" { hub.publish(change(2)) }
        }
        hub.subscribe { seen.append($0.accountID) }
        hub.publish(change(1))
        #expect(seen == ["acc_1", "acc_2"])
    }

    @Test func aCancelledSubscriptionGetsNothingMore() {
        let hub = EventHub()
        var seen = 0
        let subscription = hub.subscribe { _ in seen += 1 }
        hub.publish(change(1))
        hub.cancel(subscription)
        hub.publish(change(2))
        #expect(seen == 1)
        #expect(hub.subscriberCount == 0)
    }

    @Test func eventsHaveTheirStreamNames() {
        #expect(Event.keyDeleted(keyID: "k").name == "key.deleted")
        #expect(Event.inboxUpdated(keyID: "k", unread: 2).name == "inbox.updated")
        #expect(Event.accountDeleted.name == "account.deleted")
    }
}

/// A change of account `n`.
private func change(_ n: Int) -> Change {
    Change(accountID: "acc_\(n)", event: .keyDeleted(keyID: "key_\(n)"), actor: .account)
}
