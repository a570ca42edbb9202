"""relaydeckd migrate-to-postgres (issue 25): a store filled through the real binary's REST and
MCP surfaces, the server stopped, the copy into a PostgreSQL of the test's own
(postgres_cluster.py), and every table read back with psql and compared with the SQLite file;
the refusals with their exit codes and messages (never the password); a copy killed with
kill -9 half-way leaves PostgreSQL without a copied row. The stores copied from are SQLite in
either mode of the suite (store_mode.SQLITE_STORE)."""

import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from api import create_account, create_key, create_task
from http_clients import PythonClient
from mcp_support import tool
from postgres_cluster import PASSWORD, PostgresCluster, binaries
from server_process import base_environment, binary_path, record_secrets, wait_until
from store_mode import SQLITE_STORE
from test_devices import PHONE, put_device

pytestmark = pytest.mark.skipif(binaries() is None, reason="needs Debian's postgresql package (make test-deps)")


@pytest.fixture(scope="module")
def postgres():
    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


_databases = 0


def new_database(postgres, encoding="UTF8") -> str:
    global _databases
    _databases += 1
    return postgres.create_database(f"rd_e2e_{os.getpid()}_{_databases}", encoding)


def migrate(workdir, *arguments, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(binary_path()), "migrate-to-postgres", *arguments],
                          env=base_environment(workdir, {**SQLITE_STORE, **(env or {})}), capture_output=True, text=True, timeout=300)
    for stream in (done.stdout, done.stderr):
        assert PASSWORD not in stream, done
    return done


def fill_through_the_api(server) -> dict:
    """Accounts, keys, tasks (REST and MCP), a question answered, messages, a device with a Live
    Activity, a web session, and the activity log all of it writes."""
    py = PythonClient(server.host, server.port)
    made = {}
    account, token = create_account(py)
    other_account, other_token = create_account(py)
    key, secret = create_key(py, token, "Claude Code")
    second, second_secret = create_key(py, token, "Cursor “work” ✓")
    create_key(py, other_token, "Elsewhere")
    task = create_task(py, secret=secret, title="Résumé ✓ 日本語", description="ünïcode 😀\ntwo lines", priority="high")
    patched = py.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "in_progress", "progress": 40, "status_note": "half"},
                      api_key=secret)
    assert patched.status == 200, patched
    done_task = create_task(py, secret=second_secret, title="Done soon")
    assert py.call("PATCH", f"/v1/tasks/{done_task['id']}", json={"status": "done"}, api_key=second_secret).status == 200
    created = tool(py, secret, "create_task", {"title": "Made over MCP", "description": "by an agent"})
    assert not created.get("isError"), created
    asked = py.call("POST", "/v1/questions", json={"prompt": "Ship it?", "kind": "choice", "options": ["Yes", "No"],
                                                   "task_id": task["id"]}, api_key=secret)
    assert asked.status == 201, asked
    answered = py.call("POST", f"/v1/questions/{asked.json['id']}/answer", json={"answer": "Yes"}, token=token)
    assert answered.status == 200, answered
    assert py.call("POST", "/v1/questions", json={"prompt": "Anything else?", "kind": "text"}, api_key=second_secret).status == 201
    assert py.call("POST", "/v1/messages", json={"key_id": key["id"], "text": "Hello ✉️"}, token=token).status == 201
    assert py.call("POST", "/v1/messages", json={"to": key["id"], "text": "From Cursor"}, api_key=second_secret).status == 201
    assert py.call("GET", "/v1/inbox?limit=1", api_key=secret).status == 200
    assert put_device(py, token, apns_token="a1b2" * 16).status == 200
    registered = py.call("PUT", f"/v1/tasks/{task['id']}/live-activity", json={"device_id": PHONE, "push_token": "cd" * 32},
                         token=token)
    assert registered.status == 204, registered
    session = py.call("POST", "/web/session", json={"account_token": token},
                      headers={"Origin": f"http://{server.host}:{server.port}"})
    assert session.status == 201, session
    made.update(account=account, other_account=other_account, key=key)
    return made


def sqlite_rows(path, table: str, columns: list[str]) -> list[list]:
    with sqlite3.connect(path) as db:
        rows = db.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
    return [[("\\x" + value.hex()) if isinstance(value, bytes) else value for value in row] for row in rows]


def postgres_rows(postgres, database: str, table: str, columns: list[str]) -> list[list]:
    text = postgres.psql(database, f"SELECT coalesce(json_agg(json_build_array({', '.join(columns)})), '[]') FROM {table}")
    return json.loads(text)


def tables_of(path) -> dict[str, list[str]]:
    with sqlite3.connect(path) as db:
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {name: [row[1] for row in db.execute(f"PRAGMA table_info({name})")] for name in names}


def every_table_alike(postgres, database: str, path) -> dict[str, int]:
    """Each table's rows (rowid included where PostgreSQL keeps it) in both stores, compared as
    sorted lists; returns the row count of each table."""
    with_rowid = set(postgres.psql(database, "SELECT table_name FROM information_schema.columns "
                                             "WHERE table_schema = current_schema() AND column_name = 'rowid'").split())
    counts = {}
    for table, columns in tables_of(path).items():
        read = (["rowid"] if table in with_rowid else []) + columns
        expected = sorted(sqlite_rows(path, table, read), key=repr)
        found = sorted(postgres_rows(postgres, database, table, read), key=repr)
        assert found == expected, table
        counts[table] = len(expected)
    return counts


def test_a_store_filled_through_the_api_is_copied_whole(start_server, postgres, tmp_path):
    server = start_server(SQLITE_STORE)
    fill_through_the_api(server)
    assert server.stop() == 0
    database = new_database(postgres)
    # DATABASE_URL names the target: this command works while it is set, as the server does not.
    done = migrate(tmp_path, "--from", server.env["DATABASE_PATH"], env={"DATABASE_URL": postgres.url(database)})
    assert done.returncode == 0, done
    assert done.stdout.startswith("copied ") and done.stdout.endswith(
        f" tables from {server.env['DATABASE_PATH']} to postgres://rd_admin:(hidden)@127.0.0.1:{postgres.port}/{database}"
        "?sslmode=disable; every table's row count and checksum match\n"), done.stdout
    lines = done.stderr.splitlines()
    assert lines[0] == "relaydeckd: migrate-to-postgres: applied 18 schema migrations (up to version 18)", lines
    copied = dict(line.removeprefix("relaydeckd: migrate-to-postgres: copied ").rsplit(": ", 1) for line in lines[1:])
    counts = every_table_alike(postgres, database, server.env["DATABASE_PATH"])
    assert copied == {table: f"{rows} row" + ("" if rows == 1 else "s") for table, rows in counts.items()}, lines
    assert len(copied) == 23
    for table in ["accounts", "keys", "tasks", "questions", "inbox_items", "devices", "live_activities", "activity", "web_sessions",
                  "web_push_vapid", "changes"]:
        assert counts[table] > 0, (table, counts)
    assert counts["tasks"] == 3 and counts["keys"] == 3 and counts["accounts"] == 2
    assert postgres.psql(database, "SELECT count(*) FROM schema_migrations").strip() == "18"
    # The quota's counts came over as they were, and the triggers count again.
    assert postgres.psql(database, "SELECT sum(text_bytes) FROM accounts").strip() == \
        str(sum(row[0] for row in sqlite_rows(server.env["DATABASE_PATH"], "accounts", ["text_bytes"])))


def test_the_refusals_say_why_with_exit_codes_and_never_the_password(start_server, postgres, tmp_path):
    server = start_server(SQLITE_STORE)
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    create_key(py, token, "Claude Code")
    assert server.stop() == 0
    store = server.env["DATABASE_PATH"]
    database = new_database(postgres)
    assert migrate(tmp_path, "--from", store, "--to", postgres.url(database)).returncode == 0

    # The database holds rows now.
    again = migrate(tmp_path, "--from", store, "--to", postgres.url(database))
    assert again.returncode == 1 and again.stdout == "", again
    assert again.stderr.splitlines()[-1].startswith(
        "relaydeckd: migrate-to-postgres: the PostgreSQL database holds rows already (in accounts, keys, "), again
    assert again.stderr.splitlines()[-1].endswith("): migrate-to-postgres copies into an empty database only"), again

    # A wrong password: the server's refusal, and neither password anywhere.
    wrong = migrate(tmp_path, "--from", store, "--to", postgres.url(new_database(postgres), password="not-the-Password-9"))
    assert wrong.returncode == 1 and wrong.stdout == "", wrong
    assert wrong.stderr.startswith(f"relaydeckd: migrate-to-postgres: cannot connect to postgres://rd_admin:(hidden)@127.0.0.1:"
                                   f"{postgres.port}/"), wrong
    assert "authentication failed" in wrong.stderr and "not-the-Password-9" not in wrong.stderr + wrong.stdout, wrong

    # A store at an older schema version (its user_version set back: the refusal reads only that).
    older = tmp_path / "older.db"
    with sqlite3.connect(store) as source, sqlite3.connect(older) as copy:
        source.backup(copy)
        copy.execute("PRAGMA user_version = 16")
    target = new_database(postgres)
    outdated = migrate(tmp_path, "--from", str(older), "--to", postgres.url(target))
    assert outdated.returncode == 1, outdated
    assert outdated.stderr == (f"relaydeckd: migrate-to-postgres: {older}: the SQLite file is at schema version 16, this "
                               "relaydeckd's is 18: start this relaydeckd on it once (with DATABASE_PATH set to it and "
                               "DATABASE_URL unset; it migrates the file at start), stop it, then copy again\n"), outdated
    assert postgres.psql(target, "SELECT to_regclass('schema_migrations') IS NULL").strip() == "t"

    # A database not in UTF8.
    ascii_db = new_database(postgres, "SQL_ASCII")
    latin = migrate(tmp_path, "--from", store, "--to", postgres.url(ascii_db))
    assert latin.returncode == 1, latin
    assert latin.stderr == ("relaydeckd: migrate-to-postgres: cannot migrate the PostgreSQL database: the database's encoding "
                            "is SQL_ASCII, not UTF8; make one with CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0\n"), latin

    # A file that is not there.
    missing = migrate(tmp_path, "--from", str(tmp_path / "nothing.db"), "--to", postgres.url(target))
    assert missing.returncode == 1 and "nothing.db" in missing.stderr and not (tmp_path / "nothing.db").exists(), missing


def test_usage_mistakes_exit_2(tmp_path):
    for arguments, env in [([], None), (["--to", "postgres://a@b/c"], None), (["--from"], None),
                           (["--from", "a.db", "--from", "b.db"], None), (["--from", "a.db", "--to", ""], None),
                           (["--from", "a.db", "extra"], None)]:
        done = migrate(tmp_path, *arguments, env=env)
        assert done.returncode == 2 and done.stdout == "", (arguments, done)
        assert done.stderr.startswith("relaydeckd: usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"), (arguments, done)
    bad_url = migrate(tmp_path, "--from", "a.db", "--to", "mysql://x")
    assert bad_url.returncode == 2 and bad_url.stderr.startswith("relaydeckd: migrate-to-postgres: --to: "), bad_url
    nowhere = migrate(tmp_path, "--from", "a.db")
    assert nowhere.returncode == 2, nowhere
    assert nowhere.stderr == ("relaydeckd: migrate-to-postgres: no --to URL, and DATABASE_URL is not set: "
                              "say where to copy to\n"), nowhere
    helped = migrate(tmp_path, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: relaydeckd migrate-to-postgres"), helped


def test_a_copy_killed_half_way_leaves_postgresql_without_a_copied_row(start_server, postgres, tmp_path):
    server = start_server(SQLITE_STORE)
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    key, _ = create_key(py, token, "Claude Code")
    assert server.stop() == 0
    store = server.env["DATABASE_PATH"]
    # A long activity log, written beside the stopped server, so that the copy takes a while.
    with sqlite3.connect(store) as db:
        db.executemany("INSERT INTO activity (key_id, at, id, surface, action, status, duration_ms, message) "
                       "VALUES (?, ?, ?, 'rest', 'GET /v1/tasks', 'ok', 1, ?)",
                       ((key["id"], 1_700_000_000_000 + n, f"act_{n:08d}", "m" * 120) for n in range(250_000)))
    database = new_database(postgres)
    stderr_path = tmp_path / "copy.stderr"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen([str(binary_path()), "migrate-to-postgres", "--from", store, "--to", postgres.url(database)],
                                   env=base_environment(tmp_path, SQLITE_STORE), stdout=subprocess.PIPE, stderr=stderr)
    copying = (f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{database}' AND application_name = 'relaydeckd' "
               "AND xact_start IS NOT NULL")
    try:
        wait_until(lambda: "copied accounts" in stderr_path.read_text(), 60, message="the first table copied")
        wait_until(lambda: postgres.psql("postgres", copying).strip() == "1", 30, message="the copy's transaction open")
        assert process.poll() is None, stderr_path.read_text()
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert process.stdout.read() == b""
    # PostgreSQL ends the dead client's session and rolls its transaction back.
    gone = f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{database}' AND application_name = 'relaydeckd'"
    wait_until(lambda: postgres.psql("postgres", gone).strip() == "0", 30, message="the killed copy's session gone")
    for table in tables_of(store):
        expected = "1" if table == "changes" else "0"
        assert postgres.psql(database, f"SELECT count(*) FROM {table}").strip() == expected, table
    assert postgres.psql(database, "SELECT seq FROM changes").strip() == "0"
    # The migrations committed before the copy began, and a second copy goes through.
    assert postgres.psql(database, "SELECT count(*) FROM schema_migrations").strip() == "18"
    done = migrate(tmp_path, "--from", store, "--to", postgres.url(database))
    assert done.returncode == 0, done
    assert "relaydeckd: migrate-to-postgres: the database's schema is up to date (version 18)" in done.stderr
    assert postgres.psql(database, "SELECT count(*) FROM activity").strip() == str(activity_of(store))


def activity_of(path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM activity").fetchone()[0]
