import JSON
import SQLite

/// An MCP `clientInfo` as the contract writes it (`{"name", "version"}`) and as the store
/// keeps it (a name column and a version column): the key's `last_client`
/// (`rest-api.md#key`) and an activity entry's `client` (`rest-api.md#entry`).
extension Key.Client {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(name)
        writer.key("version")
        writer.string(version)
        writer.endObject()
    }

    /// `client` as JSON, or `null`.
    public static func write(_ client: Key.Client?, to writer: inout JSONWriter) {
        if let client { client.write(to: &writer) } else { writer.null() }
    }

    /// The client in the columns `name` and `version` of `row`; nil when no name is stored.
    static func read(_ row: some StoreRow, name: String, version: String) throws -> Key.Client? {
        guard let clientName = try row.optionalText(name) else { return nil }
        return Key.Client(name: clientName, version: try row.optionalText(version) ?? "")
    }
}
