"""Starting and stopping the real relaydeckd binary for the end-to-end tests.

Every run writes its stderr to a file of its own, so a chatty debug log can never fill a
pipe and stall the server, and the file stays behind for the secret check and for reading
after a failure.
"""

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import store_mode

PACKAGE_ROOT = Path(__file__).resolve().parents[2]

# Every secret any client saw in any answer during this pytest session. A server log is
# checked against all of them, plus the shape of any secret at all.
SEEN_SECRETS: set[str] = set()
# Account tokens, API keys, web login tokens, web session cookies, and OAuth's access tokens,
# refresh tokens, authorization codes and client secrets (mco_, mcr_, mcc_, mcx_).
SECRET_PATTERN = re.compile(rb"mc[aklsorcx]_[0-9A-Za-z]{43}")

LISTENING_TEXT = re.compile(r"\binfo listening address=(\S+)")
LISTENING_JSON = re.compile(r'"msg":"listening","address":"([^"]+)"')

START_TIMEOUT = 20.0


def resident_bytes(pid: int) -> int:
    """The resident memory of process `pid`, from /proc."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def binary_path() -> Path:
    """The binary under test: $RELAYDECKD, else .build/release/relaydeckd of the package."""
    configured = os.environ.get("RELAYDECKD")
    path = Path(configured) if configured else PACKAGE_ROOT / ".build" / "release" / "relaydeckd"
    if not path.is_absolute():
        path = PACKAGE_ROOT / path
    return path


def record_secrets(data: bytes | str) -> None:
    """Remembers every `mca_`/`mck_`/`mcl_`/`mcs_` secret in a server answer."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    for match in SECRET_PATTERN.findall(data):
        SEEN_SECRETS.add(match.decode())


def base_environment(workdir: Path, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment: nothing of the caller's leaks in (no NOTIFY_SOCKET, LISTEN_FDS,
    or a developer's RATE_LIMIT_*), only PATH and the test's own settings; in the PostgreSQL
    mode, `DATABASE_URL` of the store's database (store_mode.py)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LISTEN": "127.0.0.1:0",
        "DATABASE_PATH": str(workdir / "relaydeck.db"),
        "LOG_LEVEL": "debug",
    }
    for name, value in (overrides or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    store_mode.add_database_url(workdir, env, overrides or {})
    return env


def database_password(env: dict[str, str]) -> str | None:
    """The password in `DATABASE_URL` (a URL's form), which no log may show."""
    url = env.get("DATABASE_URL")
    if not url or "://" not in url:
        return None
    return urlsplit(url).password


class ServerProcess:
    """One run of relaydeckd. `start()` waits for the `listening` line and reads the port."""

    _runs = 0

    def __init__(self, workdir: Path, env: dict[str, str] | None = None, name: str = "relaydeckd",
                 argv_prefix: list[str] | None = None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = base_environment(self.workdir, env)
        ServerProcess._runs += 1
        self.log_path = self.workdir / f"{name}-{ServerProcess._runs}.log"
        self.argv_prefix = argv_prefix or []
        self.process: subprocess.Popen | None = None
        self.address: str | None = None
        self.finished = False
        # What `teardown` expects; a test that kills the process on purpose sets None.
        self.expected_exit_code: int | None = 0

    # -- life cycle ---------------------------------------------------------------------

    def start(self, wait_listening: bool = True) -> "ServerProcess":
        binary = binary_path()
        assert binary.exists(), f"{binary} does not exist: build it first (make build) or set RELAYDECKD"
        self._log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            self.argv_prefix + [str(binary)],
            env=self.env,
            cwd=self.workdir,
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        if wait_listening:
            self.address = self.wait_for_listening()
        return self

    def wait_for_listening(self, timeout: float = START_TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            match = LISTENING_TEXT.search(text) or LISTENING_JSON.search(text)
            if match:
                return match.group(1)
            if self.process.poll() is not None:
                raise AssertionError(f"relaydeckd exited with {self.process.returncode} before listening:\n{text}")
            time.sleep(0.02)
        raise AssertionError(f"relaydeckd did not log 'listening' within {timeout} s:\n{self.log()}")

    @property
    def host(self) -> str:
        return self.address.rsplit(":", 1)[0].strip("[]")

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        return self.process.pid

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is not None:
                self._finish()

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, then the exit code (the process is killed if it outlives `timeout`)."""
        if self.finished:
            return self.process.returncode
        self.signal(signal.SIGTERM)
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self._finish()
            raise AssertionError(f"relaydeckd did not exit within {timeout} s of SIGTERM:\n{self.log()[-4000:]}")

    def kill9(self) -> None:
        self.process.kill()
        self.process.wait()
        self._finish()

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self._log_file.close()

    # -- the log --------------------------------------------------------------------------

    def log(self) -> str:
        try:
            return self.log_path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def log_lines(self) -> list[str]:
        return self.log().splitlines()

    def assert_no_secret_in_log(self) -> None:
        raw = self.log_path.read_bytes()
        leaked = sorted(s for s in SEEN_SECRETS if s.encode() in raw)
        assert not leaked, f"secrets in the log of {self.log_path.name}: {[s[:8] + '...' for s in leaked]}"
        shaped = SECRET_PATTERN.findall(raw)
        assert not shaped, f"something shaped like a secret in {self.log_path.name}: {shaped[0][:8]!r}..."
        password = database_password(self.env)
        assert not password or password.encode() not in raw, f"the database's password in the log of {self.log_path.name}"

    def teardown(self) -> None:
        """Stops the server if it still runs, asserts the exit code and the clean log."""
        if self.process is None:
            return
        code = self.stop()
        if self.expected_exit_code is not None:
            assert code == self.expected_exit_code, f"relaydeckd exited with {code}:\n{self.log()[-4000:]}"
        self.assert_no_secret_in_log()
        self.assert_no_sqlite_file_beside_postgres()

    def assert_no_sqlite_file_beside_postgres(self) -> None:
        """A server given `DATABASE_URL` keeps nothing in the SQLite file of `DATABASE_PATH`."""
        if "DATABASE_URL" not in self.env or self.env.get("DATABASE_PATH") == ":memory:":
            return
        path = Path(store_mode.store_path(self.workdir, self.env))
        assert not path.exists(), f"{path.name} was made by a server that serves from PostgreSQL"


def wait_until(predicate, timeout: float, interval: float = 0.05, message: str = "condition"):
    """Polls `predicate` until it returns something truthy; generous deadlines, no tight timing."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"{message} not reached within {timeout} s (last: {last!r})")
