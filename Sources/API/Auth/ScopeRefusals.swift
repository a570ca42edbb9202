import Relaydeck

/// How many requests and tool calls a missing scope refused, for `/metrics`: one counter per
/// scope and surface (a REST `403`; an MCP tool error or resource read). A key the person gave
/// too few scopes shows here, where the request counters see only a `403`, or a `200` that
/// carries a tool error. Loop thread only.
final class ScopeRefusals {
    private var counts: [ActivityEntry.Surface: [Scope: Int]] = [:]

    func refused(_ scope: Scope, surface: ActivityEntry.Surface) {
        counts[surface, default: [:]][scope, default: 0] += 1
    }

    func count(_ scope: Scope, surface: ActivityEntry.Surface) -> Int {
        counts[surface]?[scope] ?? 0
    }
}
