import JSON

/// What the server says about itself: the `serverInfo`, the capabilities, and the rules of
/// `mcp.md#server-instructions` (with the inbox's two, `inbox.md#mcp-tools`), given in
/// `server/discover` and in `initialize`.
struct MCPServerInfo {
    let version: String
    /// `implementation` as JSON text, written once: every `2026-07-28` answer names the
    /// server in its `_meta` (`MCPReply.result`).
    let implementationText: [UInt8]

    init(version: String) {
        self.version = version
        var writer = JSONWriter()
        writer.value(Self.implementation(version: version))
        implementationText = writer.bytes
    }

    /// `Implementation` (`2026-07-28/schema#implementation`).
    var implementation: JSON { Self.implementation(version: version) }

    private static func implementation(version: String) -> JSON {
        .object(JSONObject([("name", .string("relaydeck")), ("title", .string("Relaydeck")), ("version", .string(version))]))
    }

    /// Tools, resources and prompts; no list ever changes, so no `listChanged`
    /// (`mcp.md#connect`: there is no `subscriptions/listen` stream).
    static var capabilities: JSON {
        .object(JSONObject([("tools", .object(JSONObject())), ("resources", .object(JSONObject())),
                            ("prompts", .object(JSONObject()))]))
    }

    static let instructions = """
        Relaydeck shows your work to the person on their iPhone, iPad and Apple Watch. Follow these rules:
        1. Create a task before you start a unit of work that takes more than a few minutes.
        2. Set status to in_progress when you start, and keep status_note and progress current.
        3. Set status to done when the work is complete and verified.
        4. Use notify_user only when the person must act or must know now.
        5. Use ask_user when a decision belongs to the person, and do not guess the answer.
        6. Call check_inbox when you start and after each unit of work. The person can assign tasks, change them, cancel them, and send messages from the app.
        7. A task_changed item with a cancelled status means: stop that work.
        """

    /// How long a client may keep `server/discover` and the lists (`server/utilities/caching`):
    /// they change only with a new version of the server.
    static let listTTLMillis = 3_600_000
    /// How long a client may keep a list that follows the key's scopes (`tools/list`, the
    /// resources): `private` to the credential, and short, because the person may change the
    /// scopes at any time and a client learns of it only by asking again (the server has no
    /// `listChanged` stream).
    static let scopedListTTLMillis = 60_000

    /// `server/discover` (`2026-07-28/server/discover`).
    func discover() -> JSONObject {
        JSONObject([
            ("supportedVersions", .array(MCPRevision.allCases.map { .string($0.rawValue) })),
            ("capabilities", Self.capabilities),
            ("instructions", .string(Self.instructions)),
            ("ttlMs", .number(JSONNumber(Self.listTTLMillis))),
            ("cacheScope", .string("public")),
        ])
    }

    /// `initialize` of the earlier revisions (`2025-11-25/basic/lifecycle#initialization`):
    /// the negotiated version, and no session (the server is stateless, so it sends no
    /// `Mcp-Session-Id`).
    func initialize(requested: String?) -> JSONObject {
        JSONObject([
            ("protocolVersion", .string(MCPRevision.negotiated(requested).rawValue)),
            ("capabilities", Self.capabilities),
            ("serverInfo", implementation),
            ("instructions", .string(Self.instructions)),
        ])
    }
}
