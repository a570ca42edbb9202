@testable import Relaydeck
import SQLite
import Testing

/// The statements of `Devices` and `WebPushSubscriptions` through both sessions, on the same
/// rows (`ServiceStatementTests.BothStores`: the filled store and its PostgreSQL copy), in the
/// order the services run them: each answers the same in both, and as the service expects.
@Suite struct DevicesStatementTests {
    /// A device as the transcript says it: what a read gave, every column.
    static func text(of device: Device) -> String {
        "\(device.accountID)/\(device.id) \(device.platform.rawValue) \(device.model) \(device.osVersion) \(device.appVersion) "
            + "\(device.environment.rawValue) apns \(device.apnsToken ?? "-") start \(device.pushToStartToken ?? "-") "
            + "widget \(device.widgetPushToken ?? "-") at \(device.updatedAt)"
    }

    static func text(of subscription: WebPushSubscription) -> String {
        "\(subscription.accountID)/\(subscription.id) \(subscription.endpoint) keys \(subscription.p256dh.count)+\(subscription.auth.count) "
            + "label \(subscription.label ?? "-") expires \(subscription.expirationTime.map(String.init) ?? "-") "
            + "at \(subscription.createdAt)..\(subscription.updatedAt)"
    }

    @Test func devicesStatementsAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            typealias SQL = Devices.SQL
            var said: [String] = []
            func list(_ account: String) async throws -> String {
                "\(account): \(try await db.rows(SQL.list, [.text(account)]) { Self.text(of: try Device(row: $0)) })"
            }
            func upsert(_ account: String, _ device: String, model: String, apns: StoreValue, at: Int64) async throws -> Int {
                try await db.run(SQL.upsert, .text(account), .text(device), "ios", .text(model), "18.2", "1.1", "production",
                                 apns, .null, .null, .integer(at))
            }
            for account in ["acc_1", "acc_2"] {
                said.append("dev_1 of \(account): \(try await db.exists(SQL.exists, .text(account), .text("dev_1")))")
                said.append("devices of \(account): \(try await db.count(SQL.count, .text(account)))")
            }
            let found = try await db.firstRow(SQL.get, .text("acc_1"), .text("dev_1")) { Self.text(of: try Device(row: $0)) }
            said.append("get: \(found ?? "none")")
            said.append("get of acc_2: \(try await db.firstRow(SQL.get, "acc_2", "dev_1") { _ in "a row" } ?? "none")")
            try await db.begin()
            // acc_2 registers the app whose APNs token dev_1 of acc_1 had: the order of `register`.
            said.append("token released: \(try await db.run(SQL.releaseToken, 90, "aa11", "acc_2", "dev_2"))")
            said.append("its pushes: \(try await db.run(SQL.deleteJobsOfToken, "aa11", "acc_2", "dev_2"))")
            said.append("new: \(try await upsert("acc_2", "dev_2", model: "iPhone17,1", apns: "aa11", at: 90))")
            said.append(try await list("acc_1"))
            said.append(try await list("acc_2"))
            said.append("released again: \(try await db.run(SQL.releaseToken, 91, "aa11", "acc_2", "dev_2"))")
            said.append("replaced: \(try await upsert("acc_2", "dev_2", model: "iPhone17,2", apns: .null, at: 91))")
            said.append("another: \(try await upsert("acc_1", "dev_3", model: "iPad16,3", apns: .null, at: 92))")
            said.append(try await list("acc_1"))
            said.append(try await list("acc_2"))
            said.append("deleted: \(try await db.run(SQL.delete, "acc_1", "dev_1"))")
            said.append("its activities: \(try await db.run(SQL.deleteLiveActivities, "acc_1", "dev_1"))")
            said.append("its pushes: \(try await db.run(SQL.deleteJobsOfDevice, "acc_1", "dev_1"))")
            said.append("deleted again: \(try await db.run(SQL.delete, "acc_1", "dev_1"))")
            said.append("devices of acc_1: \(try await db.count(SQL.count, "acc_1"))")
            try await db.rollback()
            said.append("after the rollback: \(try await db.count(SQL.count, "acc_1"))")
            return said
        }
        #expect(sqlite == [
            "dev_1 of acc_1: true", "devices of acc_1: 1", "dev_1 of acc_2: false", "devices of acc_2: 0",
            "get: acc_1/dev_1 ios iPhone16,1 18.1 1.0 sandbox apns aa11 start - widget bb22 at 40",
            "get of acc_2: none",
            "token released: 1", "its pushes: 1", "new: 1",
            #"acc_1: ["acc_1/dev_1 ios iPhone16,1 18.1 1.0 sandbox apns - start - widget - at 90"]"#,
            #"acc_2: ["acc_2/dev_2 ios iPhone17,1 18.2 1.1 production apns aa11 start - widget - at 90"]"#,
            "released again: 0", "replaced: 1", "another: 1",
            #"acc_1: ["acc_1/dev_1 ios iPhone16,1 18.1 1.0 sandbox apns - start - widget - at 90", "acc_1/dev_3 ios iPad16,3 18.2 1.1 production apns - start - widget - at 92"]"#,
            #"acc_2: ["acc_2/dev_2 ios iPhone17,2 18.2 1.1 production apns - start - widget - at 91"]"#,
            "deleted: 1", "its activities: 1", "its pushes: 1", "deleted again: 0", "devices of acc_1: 1",
            "after the rollback: 1",
        ])
        #expect(postgres == sqlite)
    }

    @Test func webPushSubscriptionsStatementsAnswerTheSameInBothStores() throws {
        let stores = try ServiceStatementTests.BothStores()
        let (sqlite, postgres) = try stores.run { db in
            typealias SQL = WebPushSubscriptions.SQL
            var said: [String] = []
            func list(_ account: String) async throws -> String {
                "\(account): \(try await db.rows(SQL.list, [.text(account)]) { Self.text(of: try WebPushSubscription(row: $0)) })"
            }
            func upsert(_ account: String, _ id: String, _ endpoint: String, label: StoreValue, at: Int64) async throws -> Int {
                try await db.run(SQL.upsert, .text(account), .text(id), .text(endpoint), .blob(Array(repeating: 4, count: 65)),
                                 .blob(Array(repeating: 9, count: 16)), label, .integer(1_760_000_000_000), .integer(at), .integer(at))
            }
            for account in ["acc_1", "acc_2"] {
                said.append("wps_1 of \(account): \(try await db.exists(SQL.exists, .text(account), .text("wps_1")))")
                said.append("subscriptions of \(account): \(try await db.count(SQL.count, .text(account)))")
            }
            let found = try await db.firstRow(SQL.get, "acc_1", "wps_1") { Self.text(of: try WebPushSubscription(row: $0)) }
            said.append("get: \(found ?? "none")")
            said.append(try await list("acc_1"))
            let key = try await db.firstRow(SQL.vapidKey) { try $0.blob("private_key") }
            said.append("key: \(key.map { "\($0.count) bytes" } ?? "none")")
            try await db.begin()
            // acc_2's browser subscribes with the endpoint of wps_1: the order of `put`.
            said.append("acc_2/wps_2 before: \(try await db.firstRow(SQL.get, "acc_2", "wps_2") { _ in "a row" } ?? "none")")
            said.append("endpoint released: \(try await db.run(SQL.releaseEndpoint, "https://push.example/1", "acc_2", "wps_2"))")
            said.append("new: \(try await upsert("acc_2", "wps_2", "https://push.example/1", label: .null, at: 91))")
            said.append(try await list("acc_1"))
            said.append(try await list("acc_2"))
            said.append("released again: \(try await db.run(SQL.releaseEndpoint, "https://push.example/1", "acc_2", "wps_2"))")
            // Replaced: the label and the time change, `created_at` stays.
            said.append("replaced: \(try await upsert("acc_2", "wps_2", "https://push.example/2", label: "Firefox", at: 95))")
            said.append("another: \(try await upsert("acc_2", "wps_3", "https://push.example/3", label: .null, at: 93))")
            said.append(try await list("acc_2"))
            said.append("ids: \(try await db.rows(SQL.ids, "acc_2") { try $0.text("id") })")
            said.append("deleted: \(try await db.run(SQL.delete, "acc_2", "wps_2"))")
            said.append("deleted again: \(try await db.run(SQL.delete, "acc_2", "wps_2"))")
            said.append("messages of wps_1: \(try await db.run(SQL.deleteJobs, "acc_1", "wps_1"))")
            try await db.execute("DELETE FROM web_push_vapid")
            said.append("key stored: \(try await db.run(SQL.storeVAPIDKey, .blob(Array(repeating: 7, count: 32)), 96))")
            let stored = try await db.firstRow(SQL.vapidKey) { try $0.blob("private_key") }
            said.append("key: \(stored.map { "\($0.count) bytes of \($0[0])" } ?? "none")")
            try await db.rollback()
            said.append(try await list("acc_1"))
            return said
        }
        let wps1 = "acc_1/wps_1 https://push.example/1 keys 65+16 label Laptop expires - at 65..65"
        #expect(sqlite == [
            "wps_1 of acc_1: true", "subscriptions of acc_1: 1", "wps_1 of acc_2: false", "subscriptions of acc_2: 0",
            "get: \(wps1)", #"acc_1: ["\#(wps1)"]"#, "key: 32 bytes",
            "acc_2/wps_2 before: none", "endpoint released: 1", "new: 1",
            "acc_1: []",
            #"acc_2: ["acc_2/wps_2 https://push.example/1 keys 65+16 label - expires 1760000000000 at 91..91"]"#,
            "released again: 0", "replaced: 1", "another: 1",
            #"acc_2: ["acc_2/wps_2 https://push.example/2 keys 65+16 label Firefox expires 1760000000000 at 91..95", "acc_2/wps_3 https://push.example/3 keys 65+16 label - expires 1760000000000 at 93..93"]"#,
            #"ids: ["wps_2", "wps_3"]"#,
            "deleted: 1", "deleted again: 0", "messages of wps_1: 1", "key stored: 1", "key: 32 bytes of 7",
            #"acc_1: ["\#(wps1)"]"#,
        ])
        #expect(postgres == sqlite)
    }
}
