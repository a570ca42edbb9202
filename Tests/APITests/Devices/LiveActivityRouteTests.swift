@testable import API
import JSON
import SQLite
import Relaydeck
import Testing

/// `PUT`/`DELETE /v1/tasks/{task_id}/live-activity` (`rest-api.md#live-activities`).
@Suite struct LiveActivityRouteTests {
    static let device = DeviceRouteTests.phone
    static let pushToken = String(repeating: "e5f6", count: 20)
    let api: APIHarness
    let token: String
    let accountID: String

    init() throws {
        api = try APIHarness()
        let account = try api.createAccount()
        token = account.token
        accountID = account.id
        let (keyID, _) = try api.createKey(token: token)
        try insertTask("tsk_1", accountID: accountID, keyID: keyID)
        _ = try api.send("PUT", "/v1/devices/\(Self.device)", [bearer(token)], body: DeviceRouteTests.body + "}")
    }

    /// A task row straight into the table: the tasks service is written elsewhere.
    func insertTask(_ id: String, accountID: String, keyID: String) throws {
        try api.store.write { db in
            try db.execute("""
                INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, \
                created_at, updated_at, created_seq, changed_seq) VALUES ('\(id)', '\(accountID)', '\(keyID)', 't', '', \
                'todo', 'medium', 0, 'agent', 1, 1, 1, 1)
                """)
        }
    }

    func send(_ method: String, _ body: String, task: String = "tsk_1", token: String? = nil) throws -> Answer {
        try api.send(method, "/v1/tasks/\(task)/live-activity", [bearer(token ?? self.token)], body: body)
    }

    @Test func putRegistersAndDeleteRemovesBoth204() async throws {
        let put = try send("PUT", #"{"device_id":"\#(Self.device)","push_token":"\#(Self.pushToken)"}"#)
        #expect(put.status == 204)
        #expect(put.text == "")
        #expect(try await api.services.liveActivities.registrations(accountID: accountID, taskID: "tsk_1").map(\.pushToken) == [Self.pushToken])
        let deleted = try send("DELETE", #"{"device_id":"\#(Self.device)"}"#)
        #expect(deleted.status == 204)
        #expect(try await api.services.liveActivities.registrations(accountID: accountID, taskID: "tsk_1").isEmpty)
        // Nothing registered is still 204.
        #expect(try send("DELETE", #"{"device_id":"\#(Self.device)"}"#).status == 204)
    }

    @Test func anUnknownTaskOrDeviceIs404() throws {
        let other = "dev_00000000-0000-4000-8000-000000000009"
        for (method, task, body, message) in [
            ("PUT", "tsk_none", #"{"device_id":"\#(Self.device)","push_token":"\#(Self.pushToken)"}"#, "Task not found."),
            ("DELETE", "tsk_none", #"{"device_id":"\#(Self.device)"}"#, "Task not found."),
            ("PUT", "tsk_1", #"{"device_id":"\#(other)","push_token":"\#(Self.pushToken)"}"#, "Device not found."),
            ("DELETE", "tsk_1", #"{"device_id":"\#(other)"}"#, "Device not found."),
        ] {
            let answer = try send(method, body, task: task)
            #expect(answer.status == 404)
            #expect(answer.text == errorBody("not_found", message))
        }
    }

    @Test func theTaskAndDeviceOfAnotherAccountAre404() throws {
        let (otherID, otherToken) = try api.createAccount()
        let (otherKey, _) = try api.createKey(token: otherToken)
        try insertTask("tsk_2", accountID: otherID, keyID: otherKey)
        #expect(try send("PUT", #"{"device_id":"\#(Self.device)","push_token":"\#(Self.pushToken)"}"#, task: "tsk_2").text
            == errorBody("not_found", "Task not found."))
        // The other account has no device of that ID.
        #expect(try send("PUT", #"{"device_id":"\#(Self.device)","push_token":"\#(Self.pushToken)"}"#, task: "tsk_2", token: otherToken).text
            == errorBody("not_found", "Device not found."))
    }

    @Test func everyProblemOfTheBodyIsOne422() throws {
        let hex = "Must be hexadecimal text of 16 to 512 digits, whole bytes."
        #expect(try send("PUT", "{}").text == validationBody([("device_id", "Required."), ("push_token", "Required.")]))
        #expect(try send("PUT", #"{"device_id":"dev_1","push_token":"xyz","extra":1}"#).text == validationBody([
            ("device_id", "Must be dev_ plus a lowercase UUID."), ("extra", "Unknown field."), ("push_token", hex),
        ]))
        #expect(try send("DELETE", #"{"push_token":"\#(Self.pushToken)"}"#).text
            == validationBody([("device_id", "Required."), ("push_token", "Unknown field.")]))
        #expect(try send("DELETE", "[]").text == validationBody([("body", "Must be a JSON object.")]))
    }

    @Test func anAPIKeyIsForbidden() throws {
        let (_, secret) = try api.createKey(token: token, label: "agent")
        #expect(try send("PUT", #"{"device_id":"\#(Self.device)","push_token":"\#(Self.pushToken)"}"#, token: secret).status == 403)
    }
}
