import JSON
import Relaydeck

/// The prompts of `mcp.md#prompts` (`2026-07-28/server/prompts`): `plan_work` divides a goal
/// into tasks, `status_report` summarizes the work.
enum MCPPrompts {
    static let listed: [JSON] = [
        prompt("plan_work", title: "Plan work", "Divide a goal into tasks and create them",
               arguments: [("goal", "What you want to reach")]),
        prompt("status_report", title: "Status report", "Summarize the open tasks and the recently closed tasks",
               arguments: []),
    ]

    /// `prompts/get`: an unknown prompt or a missing argument is `-32602`.
    static func get(_ params: JSONObject) throws(MCPError) -> JSONObject {
        guard case .string(let name)? = params["name"] else { throw .invalidParams("\"name\" must be a prompt name.") }
        let text: String
        switch name {
        case "plan_work":
            guard case .string(let goal)? = params["arguments"]?["goal"], !goal.isEmpty else {
                throw .invalidParams("plan_work needs the argument goal.")
            }
            // The contract sets no bound: a goal may be as long as a task's description, so
            // the answer is never larger than what a task may hold.
            if case .failure(let problem) = TextRule.taskDescription.check(goal) {
                throw .invalidParams("goal: \(problem.message)")
            }
            text = """
                Goal: \(goal)

                Divide this goal into units of work that each take more than a few minutes. For each unit, call \
                create_task with a one-line title, a description of what done means, and a priority. Then set the \
                first task to in_progress with update_task and start.
                """
        case "status_report":
            text = """
                Write a short status report. Call list_tasks with status "todo,in_progress" for the open tasks, and \
                list_tasks with status "done,cancelled" for the recently closed ones. Summarize what is done, what is \
                in progress with its progress and status note, and what is next. Call check_inbox first.
                """
        default:
            throw .invalidParams("Unknown prompt: \(FieldNames.shown(name)). Call prompts/list for the prompts.")
        }
        let message = JSON.object(JSONObject([
            ("role", .string("user")),
            ("content", .object(JSONObject([("type", .string("text")), ("text", .string(text))]))),
        ]))
        return JSONObject([("description", .string(name == "plan_work" ? "Plan work" : "Status report")),
                           ("messages", .array([message]))])
    }

    private static func prompt(_ name: String, title: String, _ description: String,
                               arguments: [(String, String)]) -> JSON {
        let args = arguments.map { argument in
            JSON.object(JSONObject([("name", .string(argument.0)), ("description", .string(argument.1)),
                                    ("required", .bool(true))]))
        }
        return .object(JSONObject([("name", .string(name)), ("title", .string(title)),
                                   ("description", .string(description)), ("arguments", .array(args))]))
    }
}
