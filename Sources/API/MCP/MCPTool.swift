import JSON
import Relaydeck

/// One tool of `tools/list` (`2026-07-28/server/tools#tool`): its name, what a model reads
/// about it, its argument and result schemas, and the hints of `mcp.md#tools`.
struct MCPTool {
    enum Effect {
        /// `readOnlyHint: true`.
        case readOnly
        /// Changes state; `destructiveHint` and `idempotentHint` as the table says.
        case writes(destructive: Bool, idempotent: Bool)
    }

    let name: String
    let title: String
    let description: String
    let inputSchema: JSON
    let outputSchema: JSON
    let effect: Effect
    /// What the credential must hold to see the tool in `tools/list` and to call it.
    let scope: Scope
    /// What a model does after `not_found` (the tool error "tells the model how to correct
    /// the call", `mcp.md#tools`).
    let notFoundHint: String

    init(_ name: String, title: String, _ description: String, input: String, output: String, _ effect: Effect,
         scope: Scope, notFoundHint: String = "Check the IDs you passed.") {
        self.name = name
        self.scope = scope
        self.title = title
        self.description = description
        inputSchema = MCPSchemas.parsed(input)
        outputSchema = MCPSchemas.parsed(output)
        self.effect = effect
        self.notFoundHint = notFoundHint
    }

    /// The `Tool` object. `openWorldHint` is false: every tool acts on this server only.
    var json: JSON {
        var annotations = JSONObject([("title", .string(title))])
        switch effect {
        case .readOnly:
            annotations["readOnlyHint"] = .bool(true)
        case .writes(let destructive, let idempotent):
            annotations["readOnlyHint"] = .bool(false)
            annotations["destructiveHint"] = .bool(destructive)
            annotations["idempotentHint"] = .bool(idempotent)
        }
        annotations["openWorldHint"] = .bool(false)
        return .object(JSONObject([
            ("name", .string(name)), ("title", .string(title)), ("description", .string(description)),
            ("inputSchema", inputSchema), ("outputSchema", outputSchema), ("annotations", .object(annotations)),
        ]))
    }
}
