/// The MCP revisions `/mcp` serves (`mcp.md`): `2026-07-28`, stateless, each request with its
/// own `_meta`; and the three earlier ones whose clients start with `initialize`.
enum MCPRevision: String, CaseIterable {
    case v2026_07_28 = "2026-07-28"
    case v2025_11_25 = "2025-11-25"
    case v2025_06_18 = "2025-06-18"
    case v2025_03_26 = "2025-03-26"

    /// `basic/versioning#terminology`: modern revisions carry version, identity and
    /// capabilities on every request; legacy ones have the `initialize` handshake.
    var isModern: Bool { self == .v2026_07_28 }

    /// The newest legacy revision: what `initialize` answers to a version it does not know
    /// (`2025-11-25/basic/lifecycle#version-negotiation`).
    static let newestLegacy = MCPRevision.v2025_11_25

    /// `streamable-http.mdx#protocol-version-header`: a request without the header MAY be
    /// taken as `2025-03-26`, the revision before the header existed.
    static let withoutHeader = MCPRevision.v2025_03_26

    /// The `protocolVersion` an `initialize` answers: the client's when the server has it and
    /// it is a legacy one, else the newest legacy one.
    static func negotiated(_ requested: String?) -> MCPRevision {
        guard let requested, let revision = MCPRevision(rawValue: requested), !revision.isModern else {
            return newestLegacy
        }
        return revision
    }

    /// The `_meta` keys of `2026-07-28` (`basic/index#meta`).
    static let protocolVersionKey = "io.modelcontextprotocol/protocolVersion"
    static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    static let clientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
}
