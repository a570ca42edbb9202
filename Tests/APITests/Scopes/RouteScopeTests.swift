@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// Which scope each REST route asks of an API key (issue 24), the table the README gives:
/// every route a key may call names one, except `/mcp`, which asks per tool.
@Suite struct RouteScopeTests {
    static let table: [String: String] = [
        "GET /v1/tasks": "tasks:read",
        "POST /v1/tasks": "tasks:write",
        "GET /v1/tasks/{task_id}": "tasks:read",
        "PATCH /v1/tasks/{task_id}": "tasks:write",
        "DELETE /v1/tasks/{task_id}": "tasks:write",
        "GET /v1/questions": "questions",
        "POST /v1/questions": "questions",
        "GET /v1/questions/{question_id}": "questions",
        "DELETE /v1/questions/{question_id}": "questions",
        "GET /v1/inbox": "inbox",
        "POST /v1/messages": "messages",
        "GET /v1/agents": "messages",
        "POST /mcp": "(each tool its own)",
    ]

    @Test func everyRouteAnAPIKeyMayCallNamesItsScopeAndNoOtherRouteDoes() throws {
        let api = try APIHarness()
        var found: [String: String] = [:]
        for route in api.handler.router.routes {
            for endpoint in route.endpoints {
                let name = "\(endpoint.method.name) \(route.pattern)"
                switch endpoint.access {
                case .apiKey, .accountOrKey:
                    found[name] = endpoint.scope?.rawValue ?? "(each tool its own)"
                case .account, .anyone, .immediate:
                    #expect(endpoint.scope == nil, "\(name)")
                }
            }
        }
        #expect(found == Self.table)
    }

    @Test func everyToolNamesItsScope() {
        let tools = MCPToolCatalog.tools.map { "\($0.name) \($0.scope.rawValue)" }
        #expect(tools == [
            "create_task tasks:write", "list_tasks tasks:read", "get_task tasks:read", "update_task tasks:write",
            "delete_task tasks:write", "notify_user notify", "ask_user questions", "get_answer questions",
            "check_inbox inbox", "send_message messages", "list_agents messages",
        ])
    }
}
