-- wrk script of the MCP row: JSON-RPC `tools/call update_task` with a new progress each call.
-- BENCH_MCP_TASK (the task id), BENCH_MCP_VERSION (the protocol revision; 2026-07-28 sends the
-- `_meta` fields and the Mcp-Method / Mcp-Name headers it requires), BENCH_MCP_SECRET (an API
-- key for relaydeckd; the reference takes no credential).
local task = os.getenv("BENCH_MCP_TASK")
local version = os.getenv("BENCH_MCP_VERSION")
local secret = os.getenv("BENCH_MCP_SECRET")
local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = version,
}
local meta = ""
if version == "2026-07-28" then
    headers["Mcp-Method"] = "tools/call"
    headers["Mcp-Name"] = "update_task"
    meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
        '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0"},' ..
        '"io.modelcontextprotocol/clientCapabilities":{}}'
end
if secret then
    headers["Authorization"] = "Bearer " .. secret
end
local n = 0

request = function()
    n = n + 1
    local body = '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/call","params":{"name":"update_task",' ..
        '"arguments":{"task_id":"' .. task .. '","progress":' .. (n % 100) .. '}' .. meta .. '}}'
    return wrk.format("POST", nil, headers, body)
end
