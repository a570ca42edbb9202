-- wrk script of the MCP row: JSON-RPC `tools/call update_task` with a new progress each call.
-- BENCH_MCP_CALLS: "task_id=secret,..." (relaydeckd: each API key updates a task of its own,
-- the keys taking turns, so no key comes near its rate limit), or BENCH_MCP_TASK alone (the
-- reference, which takes no credential). BENCH_MCP_VERSION: the protocol revision; 2026-07-28
-- sends the `_meta` fields and the Mcp-Method / Mcp-Name headers it requires.
local version = os.getenv("BENCH_MCP_VERSION")
local calls = {}
for id, secret in string.gmatch(os.getenv("BENCH_MCP_CALLS") or "", "([^,=]+)=([^,]+)") do
    calls[#calls + 1] = { task = id, secret = secret }
end
if #calls == 0 then
    calls[1] = { task = os.getenv("BENCH_MCP_TASK") }
end
local meta = ""
if version == "2026-07-28" then
    meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
        '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0"},' ..
        '"io.modelcontextprotocol/clientCapabilities":{}}'
end
for _, call in ipairs(calls) do
    call.headers = {
        ["Content-Type"] = "application/json",
        ["Accept"] = "application/json, text/event-stream",
        ["MCP-Protocol-Version"] = version,
    }
    if version == "2026-07-28" then
        call.headers["Mcp-Method"] = "tools/call"
        call.headers["Mcp-Name"] = "update_task"
    end
    if call.secret then
        call.headers["Authorization"] = "Bearer " .. call.secret
    end
end
local n = 0

request = function()
    n = n + 1
    local call = calls[n % #calls + 1]
    local body = '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/call","params":{"name":"update_task",' ..
        '"arguments":{"task_id":"' .. call.task .. '","progress":' .. (n % 100) .. '}' .. meta .. '}}'
    return wrk.format("POST", nil, call.headers, body)
end
