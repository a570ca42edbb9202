"""Fixtures: the real binary on a loopback port, and clients bound to it.

- `server`: one relaydeckd per test module, with rate limits raised out of the way so the
  module's tests (each with accounts of its own) cannot disturb one another.
- `start_server(env)`: a server of the test's own, for settings that change behaviour.
- `client`: the module server through http.client and through curl (each test runs twice).

Every server is stopped with SIGTERM at teardown; it must exit 0, and its log must hold no
secret that any client saw.

With `RELAYDECK_E2E_STORE=postgres` every server serves from a database of its store in one
PostgreSQL cluster of the session (store_mode.py), stopped and removed at the end.
"""

import pytest

import store_mode
from http_clients import CurlClient, PythonClient
from server_process import ServerProcess, binary_path

# The widest limits the config accepts: the shared server must never answer 429 by accident.
RELAXED_LIMITS = {
    "RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000",
    "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
}


@pytest.fixture(scope="session", autouse=True)
def built_binary():
    path = binary_path()
    if not path.exists():
        pytest.exit(f"{path} does not exist: run `make build` (or set RELAYDECKD)", returncode=1)
    return path


@pytest.fixture(scope="session", autouse=True)
def store_databases():
    """The session's PostgreSQL cluster in that mode (nothing in SQLite's)."""
    if not store_mode.ON_POSTGRES:
        yield None
        return
    yield store_mode.DATABASES.start()
    store_mode.DATABASES.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("server"), RELAXED_LIMITS).start()
    yield process
    process.teardown()


@pytest.fixture
def start_server(tmp_path):
    """Starts relaydeckd with extra environment; all of them are torn down after the test."""
    started: list[ServerProcess] = []

    def start(env: dict | None = None, wait_listening: bool = True, workdir=None, name: str = "relaydeckd",
              argv_prefix: list[str] | None = None) -> ServerProcess:
        process = ServerProcess(workdir or tmp_path, env, name=name, argv_prefix=argv_prefix)
        started.append(process)
        return process.start(wait_listening=wait_listening)

    yield start
    errors = []
    for process in started:
        try:
            process.teardown()
        except AssertionError as error:
            errors.append(str(error))
    assert not errors, "\n".join(errors)


@pytest.fixture
def py(server):
    return PythonClient(server.host, server.port)


@pytest.fixture
def curl(server):
    return CurlClient(server.host, server.port)


@pytest.fixture(params=["python", "curl"])
def client(request, server):
    cls = PythonClient if request.param == "python" else CurlClient
    return cls(server.host, server.port)


@pytest.fixture
def agent(client):
    """An account's token, one key of it (`Claude Code`) and its secret."""
    from api import create_account, create_key
    _, token = create_account(client)
    key, secret = create_key(client, token, "Claude Code")
    return token, key, secret
