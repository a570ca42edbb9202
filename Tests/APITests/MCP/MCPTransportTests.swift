@testable import API
import HTTP
import JSON
import Relaydeck
import Testing

/// `2026-07-28/basic/transports/streamable-http`: the endpoint, its credential, its headers and
/// the JSON-RPC errors of each refusal.
@Suite struct MCPTransportTests: MCPAgentSuite {
    let agent: MCPAgent

    init() throws {
        agent = try MCPAgent()
    }

    @Test func onlyPostIsServed() throws {
        for method in ["GET", "DELETE", "PUT"] {
            let answer = try api.send(method, "/mcp", [bearer(key.secret)])
            #expect(answer.status == 405)
            #expect(answer.header("Allow") == "POST")
        }
    }

    @Test func theCredentialComesFromTheHeadersOrTheQuery() throws {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        #expect(try api.send("POST", "/mcp", body: body).text == errorBody("unauthorized", "The credential is missing or wrong."))
        #expect(try api.send("POST", "/mcp", [bearer("mck_wrong")], body: body).status == 401)
        #expect(try api.send("POST", "/mcp", [bearer(token)], body: body).status == 403)
        #expect(try api.send("POST", "/mcp", [apiKey(key.secret)], body: body).status == 200)
        #expect(try api.send("POST", "/mcp?key=\(key.secret)", body: body).status == 200)
        #expect(try api.send("POST", "/mcp?key=\(token)", body: body).status == 401)
        #expect(try api.send("POST", "/mcp?key=\(key.secret)", [bearer("mck_other")], body: body).status == 401)
        // The query carries a key only on this endpoint.
        #expect(try api.send("GET", "/v1/agents?key=\(key.secret)").status == 401)
    }

    @Test func aForeignOriginIsRefusedBeforeTheCredential() throws {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        let foreign = try api.send("POST", "/mcp", [("Origin", "https://evil.example")], body: body)
        #expect(foreign.status == 403)
        #expect(foreign.text == errorBody("forbidden", "The Origin header is not the origin of this server."))
        #expect(try api.send("POST", "/mcp", [bearer(key.secret), ("Origin", "null")], body: body).status == 403)
        #expect(try api.send("POST", "/mcp", [bearer(key.secret), ("Origin", "http://relaydeck.localhost")], body: body).status == 200)
        // The scheme is the one this server speaks: plain HTTP here.
        #expect(try api.send("POST", "/mcp", [bearer(key.secret), ("Origin", "https://relaydeck.localhost")], body: body).status == 403)
    }

    /// DNS rebinding: a page of `evil.example` whose name points at this machine sends its own
    /// `Host` and a matching `Origin`; without PUBLIC_URL only this machine's names are taken.
    @Test func aHostThatIsNotThisServersNameIsRefused() throws {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        let rebound = try api.send("POST", "/mcp", [("Host", "evil.example:8080"), ("Origin", "http://evil.example:8080"), bearer(key.secret)], body: body)
        #expect(rebound.status == 403)
        #expect(rebound.text == errorBody("forbidden", "The Host header is not a name of this server. Use its address, or set PUBLIC_URL on the server."))
        #expect(try api.send("POST", "/mcp", [("Host", "evil.example"), bearer(key.secret)], body: body).status == 403)
        for host in ["127.0.0.1:8080", "127.9.9.9", "[::1]:8080", "192.168.1.20:8080", "localhost:8080", "a.localhost", "LOCALHOST."] {
            #expect(try api.send("POST", "/mcp", [("Host", host), bearer(key.secret)], body: body).status == 200, "\(host)")
        }
    }

    @Test func thePublicURLIsTheOwnOrigin() throws {
        var configuration = APIConfiguration()
        configuration.publicOrigin = "https://tasks.example.com"
        let api = try APIHarness(configuration: configuration)
        let secret = try api.createKey(token: try api.createAccount().token).secret
        let body = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        #expect(try api.send("POST", "/mcp", [bearer(secret), ("Origin", "https://tasks.example.com")], body: body).status == 200)
        #expect(try api.send("POST", "/mcp", [bearer(secret), ("Origin", "http://relaydeck.localhost")], body: body).status == 403)
        // The Host may be PUBLIC_URL's host, or a name of this machine (a proxy that passes
        // its upstream address); no other.
        #expect(try api.send("POST", "/mcp", [("Host", "tasks.example.com"), bearer(secret)], body: body).status == 200)
        #expect(try api.send("POST", "/mcp", [("Host", "127.0.0.1:8080"), bearer(secret), ("Origin", "https://tasks.example.com")], body: body).status == 200)
        #expect(try api.send("POST", "/mcp", [("Host", "evil.example"), bearer(secret), ("Origin", "https://tasks.example.com")], body: body).status == 403)
    }

    @Test func aNotificationIsAcceptedWithoutABodyOrAnEntry() throws {
        let answer = try api.send("POST", "/mcp", [bearer(key.secret)], body: #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        #expect(answer.status == 202)
        #expect(answer.response.body.isEmpty)
        #expect(!answer.record.hasEntry)
        #expect(try api.entries(token: token, keyID: key.id).isEmpty)
    }

    @Test func malformedJSONRPCGetsTheSpecificationsErrors() throws {
        let cases: [(String, Int, String?)] = [
            ("{", -32700, nil),
            ("[]", -32600, nil),
            (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600, nil),
            (#""text""#, -32600, nil),
            (#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600, nil),
            (#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600, nil),
            (#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, -32600, nil),
            (#"{"jsonrpc":"2.0","id":1,"method":7}"#, -32600, nil),
            (#"{"jsonrpc":"2.0","id":1}"#, -32600, nil),
        ]
        for (body, code, id) in cases {
            let answer = try api.send("POST", "/mcp", [bearer(key.secret)], body: body)
            #expect(answer.status == 400, "\(body)")
            let json = try answer.json()
            #expect(json["error"]?["code"]?.int64Value == Int64(code), "\(body)")
            #expect(json["id"]?.description == id)
            #expect(!answer.text.contains("\"id\""))
            #expect(answer.record.action == "POST /mcp")
            #expect(answer.record.code == "bad_request")
        }
        let arguments = try client.legacy("tools/call", #"{"name":"list_agents","arguments":[1]}"#)
        #expect(try arguments.json()["error"]?["code"]?.int64Value == -32602)
        let params = try client.legacy("ping", "[1]")
        #expect(try params.json()["error"]?["code"]?.int64Value == -32602)
        #expect(try params.json()["id"]?.int64Value == 1)
    }

    @Test func theModernHeadersMustMatchTheBody() throws {
        #expect(try client.modern("tools/list").status == 200)
        let mismatches: [[(String, String)]] = [
            [("Mcp-Method", "tools/list")],
            [("MCP-Protocol-Version", "2026-07-28")],
            [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")],
            [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list"), ("Mcp-Method", "tools/list")],
        ]
        for headers in mismatches {
            let answer = try client.modern("tools/list", headers: headers)
            #expect(answer.status == 400)
            #expect(try answer.json()["error"]?["code"]?.int64Value == -32020)
            #expect(try answer.json()["id"]?.int64Value == 1)
        }
        let wrongName = try client.modern("tools/call", #""name":"list_agents","arguments":{}"#, name: "get_task")
        #expect(wrongName.status == 400)
        #expect(try wrongName.json()["error"]?["message"]?.stringValue
            == "Header mismatch: Mcp-Name header value 'get_task' does not match body value 'list_agents'.")
        let noName = try client.modern("tools/call", #""name":"list_agents","arguments":{}"#)
        #expect(try noName.json()["error"]?["code"]?.int64Value == -32020)
        // `#value-encoding`: a Base64 sentinel is decoded before the comparison.
        let encoded = try client.modern("tools/call", #""name":"list_agents","arguments":{}"#, name: "=?base64?bGlzdF9hZ2VudHM=?=")
        #expect(encoded.status == 200)
        let metaDiffers = try client.modern("tools/list", headers: [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")],
                                            version: "2025-11-25")
        #expect(try metaDiffers.json()["error"]?["code"]?.int64Value == -32020)
        let legacyHeader = try client.modern("tools/list", headers: [("MCP-Protocol-Version", "2025-11-25")])
        #expect(legacyHeader.status == 400)
        #expect(try legacyHeader.json()["error"]?["code"]?.int64Value == -32020)
    }

    @Test func anUnsupportedVersionNamesTheSupportedOnes() throws {
        let answer = try client.modern("tools/list", version: "1900-01-01")
        #expect(answer.status == 400)
        #expect(answer.text == #"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"],"requested":"1900-01-01"}}}"#)
        // Without the header, `_meta` alone names the version.
        let body = #"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#
        let missing = try api.send("POST", "/mcp", [bearer(key.secret)], body: body)
        #expect(missing.status == 400)
        #expect(try missing.json()["error"]?["code"]?.int64Value == -32020)
    }

    @Test func anUnknownMethodIsNotFound() throws {
        let modern = try client.modern("tasks/list")
        #expect(modern.status == 404)
        #expect(try modern.json()["error"]?["code"]?.int64Value == -32601)
        #expect(modern.record.action == "unknown method")
        #expect(modern.record.code == "not_found")
        // `ping` and `initialize` left with `2026-07-28`.
        #expect(try client.modern("ping").status == 404)
        let legacy = try client.legacy("tasks/list")
        #expect(legacy.status == 200)
        #expect(try legacy.json()["error"]?["code"]?.int64Value == -32601)
        #expect(try client.legacy("server/discover").json()["error"]?["code"]?.int64Value == -32601)
    }

    @Test func theClientCapabilitiesAreRequired() throws {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        let answer = try api.send("POST", "/mcp", [bearer(key.secret), ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/list")], body: body)
        #expect(try answer.json()["error"]?["code"]?.int64Value == -32602)
    }
}
