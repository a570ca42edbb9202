import JSON
import SQLite

/// One API key of an account (`rest-api.md#key`). Its secret is not here: the server keeps
/// only the hash.
public struct Key: Sendable, Equatable {
    /// An MCP `clientInfo` (`mcp.md`): the key's `last_client`, and an activity entry's `client`.
    public struct Client: Sendable, Equatable {
        public let name: String
        public let version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    public struct Counts: Sendable, Equatable {
        public var todo = 0
        public var inProgress = 0
        public var done = 0
        public var cancelled = 0
    }

    public let id: String
    public let accountID: String
    public var label: String
    public let prefix: String
    public let last4: String
    public let createdAt: Int64
    public var lastUsedAt: Int64?
    public var lastClient: Client?
    public var lastHost: String?
    /// What the key may do (`Scope`); every scope unless the person chose fewer.
    public var scopes: ScopeSet
    public var counts: Counts

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("label")
        writer.string(label)
        writer.key("prefix")
        writer.string(prefix)
        writer.key("last4")
        writer.string(last4)
        writer.key("created_at")
        writer.timestamp(millis: createdAt)
        writer.key("last_used_at")
        if let lastUsedAt { writer.timestamp(millis: lastUsedAt) } else { writer.null() }
        writer.key("last_client")
        Client.write(lastClient, to: &writer)
        writer.key("last_host")
        writer.string(lastHost)
        writer.key("scopes")
        writer.beginArray()
        for scope in scopes { writer.string(scope.rawValue) }
        writer.endArray()
        writer.key("counts")
        writer.beginObject()
        writer.key("todo")
        writer.int(counts.todo)
        writer.key("in_progress")
        writer.int(counts.inProgress)
        writer.key("done")
        writer.int(counts.done)
        writer.key("cancelled")
        writer.int(counts.cancelled)
        writer.endObject()
        writer.endObject()
    }
}

extension Key {
    /// Decodes a row of `Keys.SQL.columns`, by name, from either store.
    init(row: some StoreRow, accountID: String) throws {
        id = try row.text("id")
        self.accountID = accountID
        label = try row.text("label")
        prefix = try row.text("prefix")
        last4 = try row.text("last4")
        createdAt = try row.int64("created_at")
        lastUsedAt = try row.optionalInt64("last_used_at")
        lastHost = try row.optionalText("last_host")
        lastClient = try Client.read(row, name: "last_client_name", version: "last_client_version")
        scopes = try row.scopes("scopes")
        counts = Counts(todo: try row.int("todo_count"), inProgress: try row.int("in_progress_count"),
                        done: try row.int("done_count"), cancelled: try row.int("cancelled_count"))
    }
}
