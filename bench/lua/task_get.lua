-- wrk script of the task-get row: GET /v1/tasks/{id} with X-API-Key, the keys taking turns.
-- BENCH_GETS: "task_id=secret,..." (each key reads a task of its own). With the load spread
-- over the keys, each key's requests stay far under RATE_LIMIT_REQUESTS_PER_MINUTE while the
-- limiter still runs for every request (bench/README.md, "The rate limit").
local gets = {}
for id, secret in string.gmatch(os.getenv("BENCH_GETS") or "", "([^,=]+)=([^,]+)") do
    gets[#gets + 1] = { path = "/v1/tasks/" .. id, headers = { ["X-API-Key"] = secret } }
end
local n = 0

request = function()
    n = n % #gets + 1
    -- Each key's request is formatted once: wrk's own work per request stays what it is
    -- without a script, a copy of a string.
    local get = gets[n]
    get.request = get.request or wrk.format("GET", get.path, get.headers)
    return get.request
end
