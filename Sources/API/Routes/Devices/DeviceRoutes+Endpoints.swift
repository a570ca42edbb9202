import HTTP
import JSON
import Relaydeck

extension DeviceRoutes {
    /// `GET /v1/devices`: `200 {"devices": [Device]}`, oldest registration first.
    func list(_ account: AccountCaller) async throws -> Outcome {
        Answers.list("devices", try await devices.list(accountID: account.accountID), bytesEach: 900) { $0.write(to: &$1) }
    }

    /// `PUT /v1/devices/{device_id}`: makes or replaces the device, `200 Device`.
    ///
    /// A malformed `device_id` is a `422` on `device_id`, with the body's problems: the client
    /// makes this ID (`rest-api.md#device`), so here it is input to check like a field, and a
    /// `404` would claim something is missing from a request that makes it.
    func put(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        let deviceID = try call.path("device_id")
        var body = call.bodyReader()
        for name in ["platform", "model", "os_version", "app_version", "apns_environment"] { body.require(name) }
        let platform: Device.Platform? = body.read("platform", .choice)
        let model = body.read("model", .text(.deviceDescription))
        let osVersion = body.read("os_version", .text(.deviceDescription))
        let appVersion = body.read("app_version", .text(.deviceDescription))
        let environment: Device.Environment? = body.read("apns_environment", .choice)
        // `null` is a token the device does not have, as when the field is left out: the
        // Device object itself writes it so, and a client may send back what it got.
        let apnsToken = body.readNullable("apns_token", .pushToken).value
        let pushToStartToken = body.readNullable("push_to_start_token", .pushToken).value
        let widgetPushToken = body.readNullable("widget_push_token", .pushToken).value
        if !DeviceID.isWellFormed(deviceID) { body.add("device_id", DeviceID.problem) }
        try body.check()
        guard let platform, let model, let osVersion, let appVersion, let environment else {
            throw APIError.defect("a checked device body lost a field")
        }
        let registration = DeviceRegistration(
            platform: platform, model: model, osVersion: osVersion, appVersion: appVersion, environment: environment,
            apnsToken: apnsToken, pushToStartToken: pushToStartToken, widgetPushToken: widgetPushToken)
        let device = try await devices.register(accountID: account.accountID, deviceID: deviceID, registration)
        return Answers.object(capacity: 900) { device.write(to: &$0) }
    }

    /// `DELETE /v1/devices/{device_id}`: `204`, or `404 Device not found.` for a device the
    /// account does not have, a malformed ID included (no device can have it): the contract
    /// gives `204` only as the result of a deletion, and names the one route where nothing
    /// registered is still `204` (`rest-api.md#live-activities`); everywhere else a resource
    /// that is not there is `404` (`overview.md#errors`).
    func delete(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        let deviceID = try call.path("device_id")
        try await devices.delete(accountID: account.accountID, deviceID: deviceID)
        return Answers.noContent
    }

    /// `PUT /v1/tasks/{task_id}/live-activity` `{"device_id", "push_token"}`: `204`.
    func putLiveActivity(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var body = call.bodyReader()
        body.require("device_id")
        body.require("push_token")
        let deviceID = body.read("device_id", .deviceID)
        let pushToken = body.read("push_token", .pushToken)
        try body.check()
        guard let deviceID, let pushToken else { throw APIError.defect("a checked live activity body lost a field") }
        let taskID = try call.path("task_id")
        try await liveActivities.register(accountID: account.accountID, taskID: taskID, deviceID: deviceID, pushToken: pushToken)
        return Answers.noContent
    }

    /// `DELETE /v1/tasks/{task_id}/live-activity` `{"device_id"}`: `204`, also when the
    /// device had no registered activity.
    func deleteLiveActivity(_ call: inout Call, _ account: AccountCaller) async throws -> Outcome {
        var body = call.bodyReader()
        body.require("device_id")
        let deviceID = body.read("device_id", .deviceID)
        try body.check()
        guard let deviceID else { throw APIError.defect("a checked live activity body lost its device") }
        let taskID = try call.path("task_id")
        try await liveActivities.unregister(accountID: account.accountID, taskID: taskID, deviceID: deviceID)
        return Answers.noContent
    }
}
