import Crypto
import HTTP
import JSON

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

/// Which revision a request speaks, and for `2026-07-28` the check that its HTTP headers say
/// what its body says (`2026-07-28/basic/transports/streamable-http#request-metadata` and
/// `#server-validation`): `MCP-Protocol-Version` against `_meta`'s protocol version,
/// `Mcp-Method` against `method`, `Mcp-Name` against `params.name` or `params.uri`.
extension MCPRevision {
    /// The methods whose `Mcp-Name` is required, and the body field it mirrors.
    static let namedBy: [String: String] = ["tools/call": "name", "resources/read": "uri", "prompts/get": "name"]

    static func of(_ message: MCPMessage, head: HTTPRequestHead) throws(MCPError) -> MCPRevision {
        let headerValues = head.headers("mcp-protocol-version")
        guard headerValues.count <= 1 else { throw .headerMismatch("MCP-Protocol-Version is sent more than once.") }
        let metaVersion = message.params["_meta"]?["\(MCPRevision.protocolVersionKey)"]
        guard let header = headerValues.first else {
            // Without the header the request is an earlier revision's, unless its `_meta`
            // says otherwise.
            guard let metaVersion else { return .withoutHeader }
            guard case .string(let named) = metaVersion, let revision = MCPRevision(rawValue: named) else {
                throw .unsupportedVersion(metaVersion.stringValue ?? metaVersion.description)
            }
            if revision.isModern { throw .headerMismatch("the MCP-Protocol-Version header is missing.") }
            return revision
        }
        guard let revision = MCPRevision(rawValue: header) else { throw .unsupportedVersion(header) }
        if revision.isModern {
            try checkModern(message, head: head, version: header, metaVersion: metaVersion)
        } else if let metaVersion, metaVersion != .string(header) {
            // The header names the body's version whenever the body names one.
            throw .headerMismatch("MCP-Protocol-Version header value '\(header)' does not match body value '\(metaVersion.stringValue ?? metaVersion.description)'.")
        }
        return revision
    }

    private static func checkModern(_ message: MCPMessage, head: HTTPRequestHead, version: String,
                                    metaVersion: JSON?) throws(MCPError) {
        guard let metaVersion else {
            throw .headerMismatch("MCP-Protocol-Version is '\(version)' but params._meta has no \(MCPRevision.protocolVersionKey).")
        }
        guard metaVersion == .string(version) else {
            throw .headerMismatch("MCP-Protocol-Version header value '\(version)' does not match body value '\(metaVersion.stringValue ?? metaVersion.description)'.")
        }
        let method = try single(head, "mcp-method", "Mcp-Method")
        guard method == message.method else {
            throw .headerMismatch("Mcp-Method header value '\(method)' does not match body value '\(message.method)'.")
        }
        guard let field = namedBy[message.method] else { return }
        let raw = try single(head, "mcp-name", "Mcp-Name")
        guard let name = decoded(raw) else { throw .headerMismatch("Mcp-Name is not valid Base64-encoded UTF-8.") }
        let body = message.params[field]?.stringValue ?? ""
        guard name == body else {
            throw .headerMismatch("Mcp-Name header value '\(name)' does not match body value '\(body)'.")
        }
    }

    private static func single(_ head: HTTPRequestHead, _ lowercased: String, _ display: String) throws(MCPError) -> String {
        let values = head.headers(lowercased)
        guard let value = values.first else { throw .headerMismatch("the \(display) header is missing.") }
        guard values.count == 1 else { throw .headerMismatch("\(display) is sent more than once.") }
        return value
    }

    /// `#value-encoding`: `=?base64?...?=` carries a value that is not plain ASCII; anything
    /// else is the value itself. Nil for a sentinel that does not decode to UTF-8.
    static func decoded(_ value: String) -> String? {
        let prefix = "=?base64?", suffix = "?="
        guard value.hasPrefix(prefix), value.hasSuffix(suffix), value.count >= prefix.count + suffix.count else {
            return value
        }
        let inner = String(value.dropFirst(prefix.count).dropLast(suffix.count))
        guard let bytes = Base64.decode(inner) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
