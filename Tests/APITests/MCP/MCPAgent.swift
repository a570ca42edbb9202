@testable import API

/// An account, one key of it, and an MCP client with that key: where each MCP suite starts.
struct MCPAgent {
    let api: APIHarness
    let token: String
    let key: (id: String, secret: String)
    let client: MCPClient

    init(configuration: APIConfiguration = APIConfiguration()) throws {
        api = try APIHarness(configuration: configuration)
        token = try api.createAccount().token
        key = try api.createKey(token: token, label: "Claude Code")
        client = MCPClient(api: api, secret: key.secret)
    }
}
