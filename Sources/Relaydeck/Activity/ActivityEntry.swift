import JSON
import SQLite

/// One request of an API key in its activity log (`rest-api.md#entry`). It holds only these
/// fields: never the text of a task, a question, an answer or a message, never a credential
/// (`rest-api.md#what-the-log-stores`).
public struct ActivityEntry: Sendable, Equatable {
    /// Where the request came in (`rest-api.md#entry`: `mcp` or `rest`).
    public enum Surface: String, Sendable, CaseIterable {
        case rest, mcp
    }

    public let id: String
    public let keyID: String
    /// When the request came, wall-clock milliseconds.
    public let at: Int64
    public let surface: Surface
    /// `PATCH /v1/tasks/{task_id}` for REST, the tool or method name for MCP.
    public let action: String
    /// `ok` for a 2xx answer, `error` for anything else.
    public let ok: Bool
    /// The error's `code`, nil when ok.
    public let code: String?
    /// Text the server wrote (`Task not found.`, `Invalid fields: priority, title.`), nil when ok.
    public let message: String?
    public let durationMillis: Int64
    public let client: Key.Client?
    public let host: String?

    public init(id: String, keyID: String, at: Int64, surface: Surface, action: String, ok: Bool, code: String?,
                message: String?, durationMillis: Int64, client: Key.Client?, host: String?) {
        self.id = id
        self.keyID = keyID
        self.at = at
        self.surface = surface
        self.action = action
        self.ok = ok
        self.code = code
        self.message = message
        self.durationMillis = durationMillis
        self.client = client
        self.host = host
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("at")
        writer.timestamp(millis: at)
        writer.key("surface")
        writer.string(surface.rawValue)
        writer.key("action")
        writer.string(action)
        writer.key("status")
        writer.string(ok ? "ok" : "error")
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        writer.key("duration_ms")
        writer.int(durationMillis)
        writer.key("client")
        Key.Client.write(client, to: &writer)
        writer.key("host")
        writer.string(host)
        writer.endObject()
    }
}

extension ActivityEntry {
    /// Decodes a row of `ActivityLog.SQL.columns`, by name, from either store.
    init(row: some StoreRow) throws {
        id = try row.text("id")
        keyID = try row.text("key_id")
        at = try row.int64("at")
        let surfaceText = try row.text("surface")
        guard let surface = Surface(rawValue: surfaceText) else {
            throw StoreError.failure("the activity log has a surface outside the contract: \(surfaceText)")
        }
        self.surface = surface
        action = try row.text("action")
        ok = try row.text("status") == "ok"
        code = try row.optionalText("code")
        message = try row.optionalText("message")
        durationMillis = try row.int64("duration_ms")
        client = try Key.Client.read(row, name: "client_name", version: "client_version")
        host = try row.optionalText("host")
    }
}
