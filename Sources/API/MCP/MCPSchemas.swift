import JSON

/// The JSON Schemas (2020-12, the default of `2026-07-28/server/tools#tool`) of the objects the
/// tools return (`rest-api.md#objects`, `inbox.md`), as text parsed once. Unknown fields stay
/// allowed: `overview.md#conventions` says new fields can come.
enum MCPSchemas {
    static let task = """
        {"type": "object", "description": "A task (rest-api.md#task) with ISO 8601 copies of its times.",
         "properties": {
          "id": {"type": "string"}, "key_id": {"type": "string"},
          "title": {"type": "string"}, "description": {"type": "string"},
          "status": {"type": "string", "enum": ["todo", "in_progress", "done", "cancelled"]},
          "priority": {"type": "string", "enum": ["low", "medium", "high", "urgent"]},
          "notify": {"type": "boolean"},
          "progress": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
          "status_note": {"type": ["string", "null"]},
          "source": {"type": "string", "enum": ["agent", "app"]},
          "created_at": {"type": "number"}, "updated_at": {"type": "number"},
          "completed_at": {"type": ["number", "null"]}, "seen_at": {"type": ["number", "null"]},
          "host": {"type": ["string", "null"]},
          "created_at_iso": {"type": "string"}, "updated_at_iso": {"type": "string"},
          "completed_at_iso": {"type": ["string", "null"]}},
         "required": ["id", "key_id", "title", "description", "status", "priority", "notify", "progress",
                      "status_note", "source", "created_at", "updated_at", "completed_at",
                      "created_at_iso", "updated_at_iso", "completed_at_iso"]}
        """

    static let question = """
        {"type": "object", "description": "A question to the person (rest-api.md#question).",
         "properties": {
          "id": {"type": "string"}, "key_id": {"type": "string"}, "task_id": {"type": ["string", "null"]},
          "prompt": {"type": "string"}, "kind": {"type": "string", "enum": ["confirm", "choice", "text"]},
          "options": {"type": "array", "items": {"type": "string"}},
          "status": {"type": "string", "enum": ["pending", "answered", "expired", "cancelled"]},
          "answer": {"type": ["string", "null"]}, "created_at": {"type": "number"},
          "answered_at": {"type": ["number", "null"]}, "expires_at": {"type": "number"}},
         "required": ["id", "key_id", "task_id", "prompt", "kind", "options", "status", "answer", "created_at",
                      "answered_at", "expires_at"]}
        """

    static let item = """
        {"type": "object", "description": "An inbox item (inbox.md#inbox-item).",
         "properties": {
          "id": {"type": "string"},
          "kind": {"type": "string", "enum": ["task_assigned", "task_changed", "task_deleted", "answer", "message"]},
          "from": {"type": "object", "properties": {"type": {"type": "string", "enum": ["person", "agent"]},
                   "key_id": {"type": "string"}, "label": {"type": "string"}}, "required": ["type"]},
          "task_id": {"type": ["string", "null"]}, "question_id": {"type": ["string", "null"]},
          "text": {"type": "string"}, "created_at": {"type": "number"}, "read_at": {"type": ["number", "null"]}},
         "required": ["id", "kind", "from", "task_id", "question_id", "text", "created_at", "read_at"]}
        """

    static let agent = """
        {"type": "object", "description": "A key of the account (inbox.md#agent).",
         "properties": {
          "key_id": {"type": "string"}, "label": {"type": "string"}, "is_self": {"type": "boolean"},
          "last_client": {"type": ["object", "null"], "properties": {"name": {"type": "string"},
                          "version": {"type": "string"}}},
          "last_used_at": {"type": ["number", "null"]}, "host": {"type": ["string", "null"]}},
         "required": ["key_id", "label", "is_self", "last_client", "last_used_at", "host"]}
        """

    /// An object schema with these properties (JSON text each) and required names.
    static func object(_ properties: [(String, String)], required: [String] = []) -> String {
        let members = properties.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ")
        let names = required.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"type": "object", "properties": {\#(members)}, "required": [\#(names)], "additionalProperties": false}"#
    }

    /// An output object: like `object`, but open to new fields.
    static func output(_ properties: [(String, String)], required: [String]) -> String {
        let members = properties.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ")
        let names = required.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"type": "object", "properties": {\#(members)}, "required": [\#(names)]}"#
    }

    /// Text of a schema, parsed; a typo here is a defect every test of `tools/list` shows.
    static func parsed(_ text: String) -> JSON {
        (try? JSONParser.parse(Array(text.utf8))) ?? .object(JSONObject([("type", .string("object"))]))
    }
}
