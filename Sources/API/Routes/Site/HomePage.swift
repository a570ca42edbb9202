/// `GET /`: what this server is, its version, which of its optional checks are on (never a
/// setting's value), and the two ways to connect an agent.
struct HomePage {
    struct Features {
        var push: Bool
        var appAttest: Bool
        var appCodes: Bool
    }

    let origin: SiteOrigin
    let version: String
    let features: Features

    var html: String {
        let url = SitePage.escape(origin.url)
        return """
            <h1>Relaydeck Server</h1>
            <p>Version \(SitePage.escape(version)). This is a self-hosted Relaydeck server: AI coding agents
            report their tasks, ask questions and read messages here over MCP, and the Relaydeck app on
            iPhone, iPad and Apple Watch shows them and answers.</p>
            <h2>This server</h2>
            <table>
            <tr><td>Address</td><td><code>\(url)</code></td></tr>
            <tr><td>MCP endpoint for agents</td><td><code>\(url)/mcp</code></td></tr>
            <tr><td>Push notifications (APNs)</td><td>\(state(features.push))</td></tr>
            <tr><td>App Attest for new accounts</td><td>\(state(features.appAttest))</td></tr>
            <tr><td>App codes (<code>X-App-Code</code>)</td><td>\(state(features.appCodes))</td></tr>
            </table>
            <h2>Connect an agent</h2>
            <p>Make an API key in the Relaydeck app (one key for each agent), then run this on the machine
            where the agent works. It asks for the key and sets up Claude Code, Codex, Cursor and Gemini CLI,
            whichever it finds, with this server and the inbox hooks:</p>
            <pre>curl -fsSL \(url)/install | sh</pre>
            <p>Without questions, the key from the environment (never on a command line):
            <code>curl -fsSL \(url)/install | RELAYDECK_API_KEY="$(cat key-file)" sh</code>.
            Read the script first at <a href="/install">/install</a>; to set an agent up by hand, see
            <a href="/docs/agents">Connect an agent</a>.</p>
            <p>Everything this server offers is in <a href="/docs">the reference</a>.</p>
            """
    }

    private func state(_ on: Bool) -> String {
        on ? #"<span class="on">on</span>"# : #"<span class="off">off</span>"#
    }
}
