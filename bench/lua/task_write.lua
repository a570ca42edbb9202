-- wrk script of the task-write row: POST /v1/tasks, then PATCH that task (progress 100, done).
-- Each 201 puts the new task's id in a queue; the next request PATCHes the oldest id in it,
-- so the load is one create and one update per task, each acknowledged after its commit.
-- BENCH_KEYS: "key_id=secret,..." (the keys take turns; a PATCH uses its task's own key).
local secrets, order = {}, {}
for id, secret in string.gmatch(os.getenv("BENCH_KEYS") or "", "([^,=]+)=([^,]+)") do
    secrets[id] = secret
    order[#order + 1] = secret
end
local queue, head, tail, n = {}, 1, 0, 0

request = function()
    if head <= tail then
        local task = queue[head]
        queue[head] = nil
        head = head + 1
        return wrk.format("PATCH", "/v1/tasks/" .. task.id,
            { ["X-API-Key"] = task.secret, ["Content-Type"] = "application/json" },
            '{"progress":100,"status":"done"}')
    end
    n = n + 1
    return wrk.format("POST", "/v1/tasks",
        { ["X-API-Key"] = order[n % #order + 1], ["Content-Type"] = "application/json" },
        '{"title":"Benchmark task ' .. n .. '","priority":"high"}')
end

response = function(status, headers, body)
    if status == 201 then
        local id = string.match(body, '"id":"(tsk_[^"]+)"')
        local key = string.match(body, '"key_id":"(key_[^"]+)"')
        tail = tail + 1
        queue[tail] = { id = id, secret = secrets[key] }
    end
end
