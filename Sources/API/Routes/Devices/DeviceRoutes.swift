import HTTP
import JSON
import Relaydeck

/// `rest-api.md#devices` and `rest-api.md#live-activities`: what the app registers so that
/// the pushes of `push.md` can reach it. Account only.
final class DeviceRoutes: RouteGroup {
    let context: APIContext
    var devices: Devices { context.services.devices }
    var liveActivities: LiveActivities { context.services.liveActivities }

    init(_ context: APIContext) {
        self.context = context
    }

    var routes: [Route] {
        [
            // Not in rest-api.md: the web console lists the devices so that the person can
            // remove one (issue 13); the app knows its own and never needed the list.
            Route("/v1/devices", [
                Endpoint(.get, .account { [self] _, account in try await list(account) }),
            ]),
            Route("/v1/devices/{device_id}", [
                Endpoint(.put, body: true, .account { [self] call, account in try await put(&call, account) }),
                Endpoint(.delete, .account { [self] call, account in try await delete(&call, account) }),
            ]),
            Route("/v1/tasks/{task_id}/live-activity", [
                Endpoint(.put, body: true, .account { [self] call, account in try await putLiveActivity(&call, account) }),
                Endpoint(.delete, body: true, .account { [self] call, account in try await deleteLiveActivity(&call, account) }),
            ]),
        ]
    }
}
