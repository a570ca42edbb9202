import JSON
import Relaydeck

/// The eleven tools of `mcp.md#tools`, in its order (`2026-07-28/server/tools`: a server
/// SHOULD list its tools in a deterministic order), each with the scope it needs. Every argument states its type, range and
/// default; the numbers are written from what the REST routes check (`Limits`, the text rules,
/// the domain's constants), so the schema text cannot drift from the checks.
enum MCPToolCatalog {
    private static let status = #"{"type": "string", "enum": ["todo", "in_progress", "done", "cancelled"]}"#
    private static let priority = #"{"type": "string", "enum": ["low", "medium", "high", "urgent"]}"#
    private static let taskID = #"{"type": "string", "description": "A task ID (tsk_...) of this key."}"#
    private static let waitSeconds = #"{"type": "integer", \#(range(Limits.waitSeconds)), "default": \#(Limits.toolWaitSeconds), "description": "Hold the call until the status is not pending, for this many seconds at most."}"#
    private static func listOf(_ item: String) -> String {
        #"{"description": "An array, or one string with commas between the values.", "anyOf": [{"type": "array", "items": \#(item), "minItems": 1, "maxItems": 4}, {"type": "string"}]}"#
    }
    private static let taskNotFound = "Call list_tasks to see the task IDs of this key."
    private static let notify = Limits.Rate.notify

    /// `"minimum": a, "maximum": b`.
    private static func range(_ range: ClosedRange<Int>) -> String {
        #""minimum": \#(range.lowerBound), "maximum": \#(range.upperBound)"#
    }

    /// A text rule's length: `"minLength"` (when it is above 0) and `"maxLength"`.
    private static func lengths(_ rule: TextRule) -> String {
        let least = rule.characters.lowerBound
        return (least > 0 ? #""minLength": \#(least), "# : "") + #""maxLength": \#(rule.characters.upperBound)"#
    }

    static let tools: [MCPTool] = [
        MCPTool("create_task", title: "Create a task",
                "Create a task for a unit of work that takes more than a few minutes. The person sees it live in the app.",
                input: MCPSchemas.object([
                    ("title", #"{"type": "string", \#(lengths(.taskTitle)), "description": "One line."}"#),
                    ("description", #"{"type": "string", \#(lengths(.taskDescription)), "default": "", "description": "Markdown."}"#),
                    ("priority", #"{"type": "string", "enum": ["low", "medium", "high", "urgent"], "default": "medium"}"#),
                    ("status", #"{"type": "string", "enum": ["todo", "in_progress", "done", "cancelled"], "default": "todo"}"#),
                    ("notify", #"{"type": "boolean", "default": true, "description": "Whether a change sends a visible notification."}"#),
                ], required: ["title"]),
                output: MCPSchemas.task, .writes(destructive: false, idempotent: false), scope: .tasksWrite),
        MCPTool("list_tasks", title: "List tasks",
                "List the tasks of this key, most recently updated first. If next_cursor is not null, call again with it as cursor.",
                input: MCPSchemas.object([
                    ("status", listOf(status)), ("priority", listOf(priority)),
                    ("limit", #"{"type": "integer", \#(range(Limits.listTasksTool.sizes)), "default": \#(Limits.listTasksTool.defaultSize)}"#),
                    ("cursor", #"{"type": "string", "description": "The next_cursor of the previous call."}"#),
                ]),
                output: MCPSchemas.output([("tasks", #"{"type": "array", "items": \#(MCPSchemas.task)}"#),
                                           ("next_cursor", #"{"type": ["string", "null"]}"#)],
                                          required: ["tasks", "next_cursor"]),
                .readOnly, scope: .tasksRead),
        MCPTool("get_task", title: "Get a task", "Read one task of this key.",
                input: MCPSchemas.object([("task_id", taskID)], required: ["task_id"]),
                output: MCPSchemas.task, .readOnly, scope: .tasksRead, notFoundHint: taskNotFound),
        MCPTool("update_task", title: "Update a task",
                "Change a task. An argument that is null or not sent does not change the field; for progress and status_note, null clears it. status done sets progress to 100.",
                input: MCPSchemas.object([
                    ("task_id", taskID),
                    ("title", #"{"type": ["string", "null"], \#(lengths(.taskTitle))}"#),
                    ("description", #"{"type": ["string", "null"], \#(lengths(.taskDescription))}"#),
                    ("status", #"{"type": ["string", "null"], "enum": ["todo", "in_progress", "done", "cancelled", null]}"#),
                    ("priority", #"{"type": ["string", "null"], "enum": ["low", "medium", "high", "urgent", null]}"#),
                    ("notify", #"{"type": ["boolean", "null"]}"#),
                    ("progress", #"{"type": ["integer", "null"], \#(range(FieldReader.progress))}"#),
                    ("status_note", #"{"type": ["string", "null"], \#(lengths(.statusNote)), "description": "One short line: what you do now."}"#),
                ], required: ["task_id"]),
                output: MCPSchemas.task, .writes(destructive: false, idempotent: true), scope: .tasksWrite, notFoundHint: taskNotFound),
        MCPTool("delete_task", title: "Delete a task",
                "Delete a task of this key. Its pending questions become cancelled.",
                input: MCPSchemas.object([("task_id", taskID)], required: ["task_id"]),
                output: MCPSchemas.output([("deleted", #"{"type": "boolean", "const": true}"#), ("task_id", #"{"type": "string"}"#)],
                                          required: ["deleted", "task_id"]),
                .writes(destructive: true, idempotent: false), scope: .tasksWrite, notFoundHint: taskNotFound),
        MCPTool("notify_user", title: "Notify the person",
                "Send one notification to each device of the person. Use it only when the person must act or must know now. \(notify.count) calls an \(notify.period.word).",
                input: MCPSchemas.object([
                    ("title", #"{"type": "string", \#(lengths(.notificationTitle))}"#),
                    ("body", #"{"type": "string", \#(lengths(.notificationBody))}"#),
                    ("task_id", taskID),
                ], required: ["title", "body"]),
                output: MCPSchemas.output([("sent", #"{"type": "boolean"}"#), ("devices", #"{"type": "integer", "minimum": 0}"#)],
                                          required: ["sent", "devices"]),
                .writes(destructive: false, idempotent: false), scope: .notify, notFoundHint: taskNotFound),
        MCPTool("ask_user", title: "Ask the person",
                "Ask the person a question when a decision belongs to them, and wait for the answer. Do not guess the answer: if the status is still pending, call get_answer later.",
                input: MCPSchemas.object([
                    ("prompt", #"{"type": "string", \#(lengths(.questionPrompt))}"#),
                    ("kind", #"{"type": "string", "enum": ["confirm", "choice", "text"], "default": "confirm"}"#),
                    ("options", #"{"type": "array", "items": {"type": "string", \#(lengths(.questionOption))}, "minItems": \#(Questions.optionCount.lowerBound), "maxItems": \#(Questions.optionCount.upperBound), "uniqueItems": true, "description": "Required for choice; not permitted for confirm and text."}"#),
                    ("task_id", taskID),
                    ("expires_in", #"{"type": "integer", \#(range(Questions.expiresIn)), "default": \#(Questions.defaultExpiresIn), "description": "Seconds until the question expires."}"#),
                    ("wait_seconds", waitSeconds),
                ], required: ["prompt"]),
                output: MCPSchemas.question, .writes(destructive: false, idempotent: false), scope: .questions, notFoundHint: taskNotFound),
        MCPTool("get_answer", title: "Get the answer",
                "Read a question that ask_user made, and wait until it is answered. Do not guess the answer while it is pending.",
                input: MCPSchemas.object([
                    ("question_id", #"{"type": "string", "description": "The id that ask_user returned (qst_...)."}"#),
                    ("wait_seconds", waitSeconds),
                ], required: ["question_id"]),
                output: MCPSchemas.question, .readOnly, scope: .questions, notFoundHint: "Pass the id that ask_user returned."),
        MCPTool("check_inbox", title: "Check the inbox",
                "Read what the person and other agents sent: assigned, changed and deleted tasks, answers, messages. A task_changed item with a cancelled status means: stop that work.",
                input: MCPSchemas.object([
                    ("wait_seconds", #"{"type": "integer", \#(range(Limits.waitSeconds)), "default": 0, "description": "Hold the call until the inbox has an unread item, for this many seconds at most."}"#),
                    ("limit", #"{"type": "integer", \#(range(Limits.inboxPage.sizes)), "default": \#(Limits.inboxPage.defaultSize)}"#),
                    ("mark_read", #"{"type": "boolean", "default": true}"#),
                ]),
                output: MCPSchemas.output([("items", #"{"type": "array", "items": \#(MCPSchemas.item)}"#),
                                           ("unread", #"{"type": "integer", "minimum": 0}"#)],
                                          required: ["items", "unread"]),
                .writes(destructive: false, idempotent: false), scope: .inbox),
        MCPTool("send_message", title: "Send a message",
                "Put a message into the inbox of a different agent of the same account.",
                input: MCPSchemas.object([
                    ("to", #"{"type": "string", "description": "The key ID, or the exact label, of a different agent (see list_agents)."}"#),
                    ("text", #"{"type": "string", \#(lengths(.messageText))}"#),
                    ("task_id", taskID),
                ], required: ["to", "text"]),
                output: MCPSchemas.item, .writes(destructive: false, idempotent: false), scope: .messages,
                notFoundHint: "Call list_agents for the key IDs and labels; task_id must be a task of this key."),
        MCPTool("list_agents", title: "List the agents", "List the keys (agents) of the account, newest first.",
                input: MCPSchemas.object([]),
                output: MCPSchemas.output([("agents", #"{"type": "array", "items": \#(MCPSchemas.agent)}"#)], required: ["agents"]),
                .readOnly, scope: .messages),
    ]

    static func tool(named name: String) -> MCPTool? {
        tools.first { $0.name == name }
    }

    /// Each tool's `Tool` object, built once.
    private static let entries = tools.map { (scope: $0.scope, json: $0.json) }

    /// The `tools` array of `tools/list` for a credential with `scopes`: the tools it may call,
    /// in the catalogue's order (issue 24: a client shows a model only what will work).
    static func listed(for scopes: ScopeSet) -> JSON {
        .array(entries.filter { scopes.contains($0.scope) }.map(\.json))
    }
}
