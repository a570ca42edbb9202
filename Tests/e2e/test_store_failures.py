"""When the store cannot be reached the server still serves: /health and every store-backed
route answer 503 `unavailable` with Retry-After, and it recovers by itself."""

import sqlite3
import subprocess
import sys
import time

import pytest

from api import STORE_UNAVAILABLE, assert_error, create_account
from http_clients import CurlClient, PythonClient
from raw_http import RawConnection, request_bytes
from server_process import wait_until
from store_mode import sqlite_only

UNAVAILABLE_HEALTH = {"status": "unavailable", "store": "unavailable"}


def assert_store_unavailable(response):
    assert_error(response, 503, STORE_UNAVAILABLE)
    assert response.header("Retry-After") == "1", response


@pytest.mark.slow
@sqlite_only("a DATABASE_PATH whose folder does not exist yet; PostgreSQL's outage is test_postgres_serving.py's")
def test_database_in_a_missing_directory_then_created(start_server, tmp_path):
    directory = tmp_path / "not-yet"
    server = start_server({"DATABASE_PATH": str(directory / "relaydeck.db")})
    py, curl = PythonClient(server.host, server.port), CurlClient(server.host, server.port)

    health = curl.call("GET", "/health")
    assert health.status == 503, health
    assert health.header("Content-Type") == "application/json"
    assert health.header("Retry-After") == "1"
    assert health.json == UNAVAILABLE_HEALTH
    head = py.call("HEAD", "/health")
    assert head.status == 503 and head.body == b""
    assert_store_unavailable(py.call("POST", "/v1/accounts", json={}))
    assert_store_unavailable(curl.call("POST", "/v1/accounts", body=b""))
    # A credential cannot be checked without the store either.
    assert_store_unavailable(py.call("GET", "/v1/account", token="mca_" + "A" * 43))
    # Routing and framing do not need the store.
    assert py.call("GET", "/nope").status == 404
    assert py.call("DELETE", "/health").status == 405

    directory.mkdir()
    wait_until(lambda: py.call("GET", "/health").status == 200, timeout=10, interval=0.2,
               message="/health 200 after the directory exists")
    assert py.call("GET", "/health").json == {"status": "ok", "store": "ok"}
    account, token = create_account(py)
    assert py.call("GET", "/v1/account", token=token).json == account
    assert (directory / "relaydeck.db").exists()
    # The Web Push key, which the start could not store, was made when the store came back.
    with sqlite3.connect(directory / "relaydeck.db") as db:
        assert db.execute("SELECT count(*) FROM web_push_vapid").fetchone() == (1,)
    assert py.call("GET", "/v1/web-push/key", token=token).status == 200


LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("COMMIT")
db.close()
print("released", flush=True)
"""


@pytest.mark.slow
@sqlite_only("another process holding SQLite's write lock on the file")
def test_write_lock_held_past_the_busy_timeout_gives_503_then_recovers(start_server, tmp_path):
    db = tmp_path / "locked.db"
    server = start_server({"DATABASE_PATH": str(db)})
    py = PythonClient(server.host, server.port, timeout=30)
    _, token = create_account(py)

    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db), "7"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        started = time.monotonic()
        response = py.call("POST", "/v1/accounts", json={})
        waited = time.monotonic() - started
        assert_store_unavailable(response)
        # The busy timeout is 5 s: the answer waits for it (and, being a 503, came before the
        # lock ended).
        assert waited >= 4.0, waited
        assert locker.stdout.readline().strip() == "released"
        assert locker.wait(timeout=10) == 0
    finally:
        if locker.poll() is None:
            locker.kill()
            locker.wait()

    response = py.call("POST", "/v1/accounts", json={})
    assert response.status == 201, response
    assert py.call("GET", "/v1/account", token=token).status == 200
    assert py.call("GET", "/health").json == {"status": "ok", "store": "ok"}


@sqlite_only("another process holding SQLite's write lock on the file")
def test_a_write_waiting_for_the_lock_does_not_stop_reads(start_server, tmp_path):
    """The loop never sleeps in SQLite's busy handler: while another process holds the write
    lock, a write waits on a timer, and reads, /health and other clients go on at once."""
    db = tmp_path / "locked.db"
    server = start_server({"DATABASE_PATH": str(db)})
    py = PythonClient(server.host, server.port, timeout=30)
    _, token = create_account(py)

    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db), "6"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        writer = RawConnection(server.port, timeout=30)
        writer.send(request_bytes("POST", "/v1/accounts", b"{}"))
        time.sleep(0.2)
        for _ in range(5):
            started = time.monotonic()
            assert py.call("GET", "/health").status == 200
            assert py.call("GET", "/v1/account", token=token).status == 200
            assert time.monotonic() - started < 0.5
        assert_store_unavailable(writer.read_response())
        writer.close()
    finally:
        if locker.poll() is None:
            locker.kill()
            locker.wait()


@sqlite_only("another process holding SQLite's write lock on the file")
def test_a_write_gets_the_lock_as_soon_as_it_is_released(start_server, tmp_path):
    db = tmp_path / "locked.db"
    server = start_server({"DATABASE_PATH": str(db)})
    py = PythonClient(server.host, server.port, timeout=30)
    create_account(py)

    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db), "1.5"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        started = time.monotonic()
        response = py.call("POST", "/v1/accounts", json={})
        waited = time.monotonic() - started
        assert response.status == 201, response
        assert 1.0 <= waited < 3.0, waited
        assert locker.wait(timeout=10) == 0
    finally:
        if locker.poll() is None:
            locker.kill()
            locker.wait()


@pytest.mark.slow
@sqlite_only("the disk filled under the server's own file (RLIMIT_FSIZE); on PostgreSQL the database server writes")
def test_a_full_disk_gives_503_then_recovers(start_server, tmp_path):
    """The disk fills up: simulated with RLIMIT_FSIZE on the running server (prlimit), so every
    write that would grow a file fails with EFBIG (the server ignores SIGXFSZ). Raising the
    limit again is the disk getting space back."""
    db = tmp_path / "full.db"
    server = start_server({"DATABASE_PATH": str(db)})
    py = PythonClient(server.host, server.port, timeout=30)
    _, token = create_account(py)
    pid = server.pid
    subprocess.run(["prlimit", "--pid", str(pid), "--fsize=1:unlimited"], check=True)
    try:
        # The WAL grows with every commit: the next writes cannot.
        for _ in range(3):
            assert_store_unavailable(py.call("POST", "/v1/accounts", json={}))
            assert_store_unavailable(py.call("POST", "/v1/keys", token=token, json={"label": "full"}))
        # Reads still work, and nothing half-written shows.
        keys = py.call("GET", "/v1/keys", token=token)
        assert keys.status == 200 and keys.json == {"keys": []}, keys
    finally:
        subprocess.run(["prlimit", "--pid", str(pid), "--fsize=unlimited:unlimited"], check=True)
    wait_until(lambda: py.call("POST", "/v1/keys", token=token, json={"label": "room again"}).status == 201,
               timeout=10, interval=0.3, message="a key can be made once the disk has room")
    keys = py.call("GET", "/v1/keys", token=token).json["keys"]
    assert [key["label"] for key in keys] == ["room again"]
    assert server.process.poll() is None
