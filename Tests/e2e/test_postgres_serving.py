"""What only a server on PostgreSQL has (README "Serving from PostgreSQL"): the database
stopped under a running relaydeckd and started again, with /health and every request that
needs the store answering 503 with Retry-After meanwhile (never 500, never a hang) and the
server connecting again by itself; the URL read from `DATABASE_URL_FILE`; a start against a
database that does not exist; `backup`'s refusal. The module has a cluster of its own (postgres_cluster.py), which
its tests stop and start, in either mode of the suite (store_mode.py)."""

import subprocess
import threading
import time

import pytest

from api import STORE_UNAVAILABLE, assert_error, create_account, create_key, create_task, all_tasks
from http_clients import CurlClient, PythonClient
from postgres_cluster import PASSWORD, binaries, new_database
from server_process import base_environment, binary_path, wait_until
from two_nodes import postgres  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.skipif(binaries() is None, reason="needs Debian's postgresql package (make test-deps)"),
              pytest.mark.slow]

HEALTHY = {"status": "ok", "store": "ok"}
UNAVAILABLE_HEALTH = {"status": "unavailable", "store": "unavailable"}
OUTAGE = "warn the database is unavailable; answering 503 and connecting again"
RECOVERY = "info the database answers again"
# The reconnection's backoff grows to 5 s: a restarted database is found within that and more.
RECONNECTS_WITHIN = 15
@pytest.fixture
def database(postgres):
    """A database of the test's own; the cluster runs again after the test, whatever it did."""
    name = new_database(postgres, "rd_serving")
    yield name
    if postgres.process.poll() is not None:
        postgres.restart()


def assert_store_unavailable(response):
    assert_error(response, 503, STORE_UNAVAILABLE)
    assert response.header("Retry-After") == "1", response


def health(client):
    return client.call("GET", "/health")


def test_health_is_unavailable_while_the_database_is_stopped_and_ok_once_it_is_back(start_server, postgres, database):
    server = start_server({"DATABASE_URL": postgres.url(database)})
    py, curl = PythonClient(server.host, server.port), CurlClient(server.host, server.port)
    assert health(py).json == HEALTHY

    postgres.shut_down()
    wait_until(lambda: health(py).status == 503, timeout=10, message="/health 503 with the database stopped")
    stopped = health(curl)
    assert stopped.status == 503 and stopped.json == UNAVAILABLE_HEALTH, stopped
    assert stopped.header("Retry-After") == "1" and stopped.header("Cache-Control") == "no-cache", stopped
    assert health(py).status == 503, "the server found a database that is not there"

    postgres.restart()
    wait_until(lambda: health(py).status == 200, timeout=RECONNECTS_WITHIN, interval=0.1,
               message="/health 200 after the database restarted")
    assert health(curl).json == HEALTHY
    # The same process, never restarted: it said the outage once and the recovery once.
    assert server.process.poll() is None
    lines = server.log_lines()
    assert sum(OUTAGE in line for line in lines) == 1, [line for line in lines if "database" in line]
    assert sum(RECOVERY in line for line in lines) == 1, [line for line in lines if "database" in line]
    assert PASSWORD not in server.log()


def test_requests_during_an_outage_get_503_with_retry_after_and_work_again_after_it(start_server, postgres, database):
    server = start_server({"DATABASE_URL": postgres.url(database)})
    py, curl = PythonClient(server.host, server.port, timeout=10), CurlClient(server.host, server.port, timeout=10)
    account, token = create_account(py)
    _, secret = create_key(py, token, "Claude Code")
    before = create_task(py, secret=secret, title="Before the outage")

    postgres.shut_down()
    wait_until(lambda: health(py).status == 503, timeout=10, message="/health 503 with the database stopped")
    for client in (py, curl):
        for method, path, credential, body in [("GET", "/v1/account", {"token": token}, None),
                                               ("GET", "/v1/tasks", {"api_key": secret}, None),
                                               ("POST", "/v1/tasks", {"api_key": secret}, {"title": "In the outage"}),
                                               ("PATCH", f"/v1/tasks/{before['id']}", {"api_key": secret}, {"progress": 50}),
                                               ("POST", "/v1/accounts", {}, {})]:
            started = time.monotonic()
            answer = client.call(method, path, json=body, **credential) if body is not None else client.call(method, path, **credential)
            assert_store_unavailable(answer)
            assert time.monotonic() - started < 2, (method, path, "answered after", time.monotonic() - started)

    postgres.restart()
    wait_until(lambda: health(py).status == 200, timeout=RECONNECTS_WITHIN, interval=0.1,
               message="/health 200 after the database restarted")
    assert py.call("GET", "/v1/account", token=token).json == account
    # Nothing refused was written; the task of before is as it was.
    assert all_tasks(py, secret=secret) == [before]
    after = create_task(curl, secret=secret, title="After the outage")
    assert [task["id"] for task in all_tasks(py, secret=secret)] == [after["id"], before["id"]]
    assert server.process.poll() is None


def test_writes_through_a_restart_are_answered_201_or_503_and_every_201_is_kept(start_server, postgres, database):
    server = start_server({"DATABASE_URL": postgres.url(database)})
    py = PythonClient(server.host, server.port, timeout=10)
    _, token = create_account(py)
    _, secret = create_key(py, token, "Claude Code")
    answers = []
    writing = threading.Event()
    writing.set()

    def write_tasks():
        writer = PythonClient(server.host, server.port, timeout=10)
        n = 0
        while writing.is_set():
            n += 1
            started = time.monotonic()
            answer = writer.call("POST", "/v1/tasks", json={"title": f"write {n}"}, api_key=secret)
            answers.append((answer, time.monotonic() - started))
            time.sleep(0.01)

    thread = threading.Thread(target=write_tasks)
    thread.start()
    try:
        wait_until(lambda: len(answers) >= 20, timeout=10, message="writes before the outage")
        postgres.shut_down()
        time.sleep(1)
        postgres.restart()
        wait_until(lambda: health(py).status == 200, timeout=RECONNECTS_WITHIN, interval=0.1,
                   message="/health 200 after the database restarted")
        count = len(answers)
        wait_until(lambda: len(answers) >= count + 20, timeout=10, message="writes after the restart")
    finally:
        writing.clear()
        thread.join(timeout=30)

    statuses = [answer.status for answer, _ in answers]
    assert set(statuses) == {201, 503}, sorted(set(statuses))
    for answer, elapsed in answers:
        assert elapsed < 5, ("an answer took", elapsed)
        if answer.status == 503:
            assert_store_unavailable(answer)
    # The last writes went through again, and every acknowledged task is in the store.
    assert statuses[-20:] == [201] * 20, statuses[-30:]
    kept = {task["id"] for task in all_tasks(py, secret=secret)}
    acknowledged = {answer.json["id"] for answer, _ in answers if answer.status == 201}
    assert acknowledged <= kept, len(acknowledged - kept)


def test_database_url_file_names_the_database_the_server_keeps_its_data_in(start_server, postgres, database, tmp_path):
    url_file = tmp_path / "database-url"
    url_file.write_text(postgres.url(database) + "\n")
    url_file.chmod(0o600)
    server = start_server({"DATABASE_URL_FILE": str(url_file)})
    py = PythonClient(server.host, server.port)
    account, token = create_account(py)
    assert postgres.psql(database, "SELECT id FROM accounts").split() == [account["id"]]
    assert f"database=\"postgres://rd_admin:(hidden)@127.0.0.1:{postgres.port}/{database}?sslmode=disable\"" in server.log()
    assert server.stop() == 0
    # Started again on the same file: the account is there.
    again = start_server({"DATABASE_URL_FILE": str(url_file)}, name="again")
    assert PythonClient(again.host, again.port).call("GET", "/v1/account", token=token).json == account


def test_a_start_against_a_database_that_does_not_exist_exits_1_naming_it_without_the_password(postgres, tmp_path):
    done = subprocess.run([str(binary_path())], env=base_environment(tmp_path, {"DATABASE_URL": postgres.url("rd_never_made")}),
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done
    assert done.stderr == (f"relaydeckd: DATABASE_URL: cannot connect to postgres://rd_admin:(hidden)@127.0.0.1:{postgres.port}"
                           '/rd_never_made?sslmode=disable: PostgreSQL error 3D000 (database "rd_never_made" does not exist)\n')
    assert PASSWORD not in done.stdout + done.stderr
    assert "listening" not in done.stdout + done.stderr
    assert not (tmp_path / "relaydeck.db").exists()


def test_backup_refuses_a_store_on_postgresql_and_makes_no_file(postgres, database, tmp_path):
    done = subprocess.run([str(binary_path()), "backup", str(tmp_path / "copy.db")],
                          env=base_environment(tmp_path, {"DATABASE_URL": postgres.url(database)}), cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done
    assert done.stderr == ("relaydeckd: DATABASE_URL: backup copies the SQLite store; this configuration keeps its data in PostgreSQL "
                           "(DATABASE_URL): back that up with pg_dump or the database's own backups\n"), done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    assert not (tmp_path / "copy.db").exists() and not (tmp_path / "relaydeck.db").exists()


def test_a_clean_stop_says_no_outage(start_server, postgres, database):
    server = start_server({"DATABASE_URL": postgres.url(database)})
    assert health(PythonClient(server.host, server.port)).json == HEALTHY
    assert server.stop() == 0
    assert not [line for line in server.log_lines() if OUTAGE in line]
