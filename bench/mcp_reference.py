#!/usr/bin/env python3
"""The reference of the MCP row: a server on the official Python MCP SDK (`mcp`, MCPServer)
doing the same work as relaydeckd's `tools/call update_task`: stateless streamable HTTP with
JSON answers, one SQLite write (an UPDATE of the task's progress, committed) per call, the
task returned as JSON. Served by uvicorn, one process, like the SDK's own examples.

    python3 bench/mcp_reference.py PORT DATABASE
"""

import json
import sqlite3
import sys
import time

import uvicorn
from mcp.server.mcpserver import MCPServer

PORT = int(sys.argv[1])
DATABASE = sys.argv[2]

db = sqlite3.connect(DATABASE, isolation_level=None, check_same_thread=False)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, title TEXT NOT NULL, progress INTEGER, "
           "updated_at REAL NOT NULL)")
db.execute("INSERT OR IGNORE INTO tasks VALUES ('tsk_bench', 'Benchmark task', NULL, ?)", (time.time(),))

server = MCPServer("reference")


@server.tool()
def update_task(task_id: str, progress: int | None = None) -> str:
    """Updates a task's progress and returns the task."""
    db.execute("BEGIN IMMEDIATE")
    db.execute("UPDATE tasks SET progress = ?, updated_at = ? WHERE id = ?", (progress, time.time(), task_id))
    row = db.execute("SELECT id, title, progress, updated_at FROM tasks WHERE id = ?", (task_id,)).fetchone()
    db.execute("COMMIT")
    if row is None:
        raise ValueError("Task not found.")
    return json.dumps(dict(zip(("id", "title", "progress", "updated_at"), row)))


app = server.streamable_http_app(json_response=True, stateless_http=True)
uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", access_log=False)
