import JSON

extension Key {
    /// `{"agents": [Agent]}` (also the MCP tool `list_agents`'s result).
    public static func writeAgents(_ keys: [Key], selfID: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("agents")
        writer.beginArray()
        for key in keys {
            writer.beginObject()
            writer.key("key_id")
            writer.string(key.id)
            writer.key("label")
            writer.string(key.label)
            writer.key("is_self")
            writer.bool(key.id == selfID)
            writer.key("last_client")
            Key.Client.write(key.lastClient, to: &writer)
            writer.key("last_used_at")
            writer.timestamp(millis: key.lastUsedAt)
            writer.key("host")
            writer.string(key.lastHost)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
