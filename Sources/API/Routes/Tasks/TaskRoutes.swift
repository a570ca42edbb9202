import HTTP
import JSON
import Relaydeck

/// `rest-api.md#tasks`: both credential types; an API key reaches only its own key's tasks.
final class TaskRoutes: RouteGroup {
    let context: APIContext
    var tasks: Tasks { context.services.tasks }

    init(_ context: APIContext) {
        self.context = context
    }

    var routes: [Route] {
        [
            Route("/v1/tasks", [
                Endpoint(.get, scope: .tasksRead, .accountOrKey { [self] call, principal in try await list(&call, principal) }),
                Endpoint(.post, body: true, scope: .tasksWrite, .accountOrKey { [self] call, principal in try await create(&call, principal) }),
            ]),
            Route("/v1/tasks/{task_id}", [
                Endpoint(.get, scope: .tasksRead, .accountOrKey { [self] call, principal in
                    Self.answer(try await tasks.get(principal, taskID: try call.path("task_id")))
                }),
                Endpoint(.patch, body: true, scope: .tasksWrite, .accountOrKey { [self] call, principal in try await update(&call, principal) }),
                Endpoint(.delete, scope: .tasksWrite, .accountOrKey { [self] call, principal in
                    try await tasks.delete(principal, taskID: try call.path("task_id"))
                    return Answers.noContent
                }),
            ]),
        ]
    }

    /// A field that only the account may send (`key_id`): with an API key it is a `422`.
    static let accountOnly = "Not permitted with an API key."

    static func answer(_ task: WorkTask, status: Int = 200) -> Outcome {
        Answers.object(status, capacity: 400 + task.description.utf8.count) { task.write(to: &$0) }
    }
}
