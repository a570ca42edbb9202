@testable import API

/// A suite that starts from an `MCPAgent`, and names its parts directly.
protocol MCPAgentSuite {
    var agent: MCPAgent { get }
}

extension MCPAgentSuite {
    var api: APIHarness { agent.api }
    var token: String { agent.token }
    var key: (id: String, secret: String) { agent.key }
    var client: MCPClient { agent.client }
}
