"""Small helpers of the reliability suite: a keep-alive JSON client, the state of the server
process from /proc, and the database looked at directly with Python's sqlite3."""

import http.client
import json
import os
import sqlite3
from pathlib import Path

from server_process import record_secrets


class KeepAlive:
    """One persistent http.client connection; reconnects after the server closed it."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 30.0):
        self.host, self.port, self.timeout = host, port, timeout
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, body=None, token: str | None = None, key: str | None = None,
             headers: dict | None = None) -> tuple[int, dict, bytes]:
        """(status, lower-cased headers, body bytes); raises OSError or HTTPException when the
        connection breaks (the caller decides what a broken connection means)."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        fields = dict(headers or {})
        payload = None
        if body is not None:
            payload = body if isinstance(body, bytes) else json.dumps(body).encode()
            fields.setdefault("Content-Type", "application/json")
        if token:
            fields["Authorization"] = f"Bearer {token}"
        if key:
            fields["X-API-Key"] = key
        try:
            self.conn.request(method, path, body=payload, headers=fields)
            answer = self.conn.getresponse()
            data = answer.read()
        except Exception:
            self.close()
            raise
        record_secrets(data)
        if answer.will_close:
            self.close()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, data

    def json(self, method: str, path: str, body=None, expect: int | None = None, **kwargs):
        status, _, data = self.call(method, path, body, **kwargs)
        if expect is not None:
            assert status == expect, (method, path, status, data[:500])
        return json.loads(data) if data else None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def new_account(client: KeepAlive, keys: int = 1) -> tuple[str, list[tuple[str, str]]]:
    """An account token and `keys` (key_id, secret) pairs."""
    token = client.json("POST", "/v1/accounts", {}, expect=201)["token"]
    made = []
    for n in range(keys):
        body = client.json("POST", "/v1/keys", {"label": f"agent {n}"}, token=token, expect=201)
        made.append((body["key"]["id"], body["secret"]))
    return token, made


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def inspect(db_path: Path) -> sqlite3.Connection:
    """The database opened read-write by Python's sqlite3 (which also replays the WAL), after
    `PRAGMA integrity_check` said ok."""
    db = sqlite3.connect(str(db_path), isolation_level=None, timeout=10)
    result = db.execute("PRAGMA integrity_check").fetchall()
    assert result == [("ok",)], result
    return db


def key_counts_match_tasks(db: sqlite3.Connection) -> None:
    """The counts kept on each key equal the tasks it has: a write applied halfway would leave
    them apart."""
    rows = db.execute("""
        SELECT k.id, k.todo_count, k.in_progress_count, k.done_count, k.cancelled_count,
               (SELECT count(*) FROM tasks t WHERE t.key_id = k.id AND t.status = 'todo'),
               (SELECT count(*) FROM tasks t WHERE t.key_id = k.id AND t.status = 'in_progress'),
               (SELECT count(*) FROM tasks t WHERE t.key_id = k.id AND t.status = 'done'),
               (SELECT count(*) FROM tasks t WHERE t.key_id = k.id AND t.status = 'cancelled')
        FROM keys k WHERE k.deleted_at IS NULL""").fetchall()
    for row in rows:
        assert tuple(row[1:5]) == tuple(row[5:9]), f"key {row[0]}: counts {row[1:5]} but tasks {row[5:9]}"
    # The storage quota's count (migration 8) is kept the same way: it equals the text it counts.
    texts = db.execute("""
        SELECT k.id, k.text_bytes,
               coalesce((SELECT sum(length(CAST(title AS BLOB)) + length(CAST(description AS BLOB))
                   + coalesce(length(CAST(status_note AS BLOB)), 0)) FROM tasks WHERE key_id = k.id), 0)
               + coalesce((SELECT sum(length(CAST(prompt AS BLOB)) + length(CAST(options AS BLOB))
                   + coalesce(length(CAST(answer AS BLOB)), 0)) FROM questions WHERE key_id = k.id), 0)
               + coalesce((SELECT sum(length(CAST(text AS BLOB))) FROM inbox_items WHERE key_id = k.id), 0)
        FROM keys k""").fetchall()
    for key_id, kept, scanned in texts:
        assert kept == scanned, f"key {key_id}: text_bytes {kept} but its rows hold {scanned} bytes"
