import Testing
import TestSupport
@testable import Postgres

/// LISTEN/NOTIFY between two connections of the real server.
@Suite struct NotificationTests {
    let cluster = PostgresCluster.shared

    @Test func notificationsReachTheListenerInOrderWithTheirPayloads() throws {
        let driver = try LoopDriver()
        let listener = try driver.open(cluster.settings("rd_scram"))
        let notifier = try driver.open(cluster.settings("rd_md5"))
        defer {
            listener.close()
            notifier.close()
        }
        var received: [PostgresNotification] = []
        listener.onNotification = { received.append($0) }
        _ = try driver.run(listener, [PostgresQuery("LISTEN relaydeck_changes")]).get()
        let long = String(repeating: "x", count: 7_999)
        _ = try driver.run(notifier, [
            .begin,
            PostgresQuery("SELECT pg_notify('relaydeck_changes', $1)", "first"),
            PostgresQuery("SELECT pg_notify('relaydeck_changes', $1)", .text(long)),
            PostgresQuery("SELECT pg_notify('other_channel', 'not for us')"),
            .commit,
        ]).get()
        driver.run { received.count == 2 }
        #expect(received.map(\.payload) == ["first", long])
        #expect(received.map(\.channel) == ["relaydeck_changes", "relaydeck_changes"])
        #expect(received.allSatisfy { $0.processID == notifier.processID })
    }

    @Test func aRolledBackNotifyIsNeverDelivered() throws {
        let driver = try LoopDriver()
        let listener = try driver.open(cluster.settings("rd_scram"))
        let notifier = try driver.open(cluster.settings("rd_scram"))
        defer {
            listener.close()
            notifier.close()
        }
        var received: [String] = []
        listener.onNotification = { received.append($0.payload) }
        _ = try driver.run(listener, [PostgresQuery("LISTEN rollback_test")]).get()
        _ = try driver.run(notifier, [.begin, PostgresQuery("NOTIFY rollback_test, 'lost'"), .rollback]).get()
        _ = try driver.run(notifier, [PostgresQuery("NOTIFY rollback_test, 'kept'")]).get()
        driver.run { !received.isEmpty }
        // The listener's own round trip after it: anything earlier has come by now.
        _ = try driver.run(listener, [PostgresQuery("SELECT 1")]).get()
        #expect(received == ["kept"])
    }
}
