"""A PostgreSQL server of the tests' own, as Tests/TestSupport/PostgresCluster.swift makes one:
Debian's binaries from /usr/lib/postgresql/*/bin (`make test-deps` installs `postgresql`; no
system service is used), `initdb` in a folder under /tmp, `postgres` on a free loopback port
and a Unix socket in that folder, stopped (SIGINT, a fast shutdown) and removed at the end.
`shut_down` and `restart` stop it and start it again on the same port with the same data, for
a database that goes away under a running relaydeckd.

Under root (CI) the server's programs run as the `postgres` user through `setpriv`, as initdb
and postgres refuse root; the folder is that user's. `psql` runs as the caller over the socket,
where every role is trusted; over TCP the one role, `rd_admin`, needs its password (SCRAM).
"""

import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "admin-secret-Zq7"
USER = "rd_admin"


def binaries() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin that has initdb."""
    root = Path("/usr/lib/postgresql")
    if not root.is_dir():
        return None
    versions = sorted((int(p.name), p / "bin") for p in root.iterdir() if p.name.isdigit() and (p / "bin" / "initdb").exists())
    return versions[-1][1] if versions else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresCluster:
    def __init__(self):
        self.bin = binaries()
        if self.bin is None:
            raise RuntimeError("no PostgreSQL server in /usr/lib/postgresql/*/bin: install Debian's postgresql package (make test-deps)")
        self.directory = Path(tempfile.mkdtemp(prefix="relaydeck-pg-e2e-"))
        self._give(self.directory)
        self.data = self.directory / "data"
        self.port = free_port()
        self.log_path = self.directory / "postgres.log"
        password_file = self.directory / "password"
        password_file.write_text(PASSWORD)
        self._give(password_file)
        self._run_as_server([str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, f"--pwfile={password_file}",
                             "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"])
        hba = self.directory / "pg_hba.conf"
        hba.write_text("local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n")
        self._give(hba)
        self._settings = [f"listen_addresses=127.0.0.1", f"port={self.port}", f"unix_socket_directories={self.directory}",
                          f"hba_file={hba}", "fsync=off", "synchronous_commit=off", "full_page_writes=off",
                          "max_connections=40", "shared_buffers=16MB", "log_min_messages=warning"]
        self._log = open(self.log_path, "ab")
        self._start()

    # -- what tests use ---------------------------------------------------------------------

    def url(self, database: str, password: str = PASSWORD, user: str = USER) -> str:
        return f"postgres://{user}:{password}@127.0.0.1:{self.port}/{database}?sslmode=disable"

    def create_database(self, name: str, encoding: str = "UTF8") -> str:
        self.psql("postgres", f"CREATE DATABASE {name} ENCODING '{encoding}' TEMPLATE template0")
        return name

    def psql(self, database: str, sql: str) -> str:
        """`sql` through psql over the socket, unaligned and without headers: one line per row,
        columns split by `|`; psql's exit status must be 0."""
        done = subprocess.run([str(self.bin / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", str(self.directory),
                               "-p", str(self.port), "-U", USER, "-d", database, "-At", "-c", sql],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done
        return done.stdout

    def shut_down(self) -> None:
        """Stops the server (a fast shutdown: its sessions end at once); the data stays."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self) -> None:
        """Starts the server again after `shut_down`: the same port, socket and data."""
        assert self.process.poll() is not None, "the server still runs"
        self._start()

    def stop(self) -> None:
        self.shut_down()
        self._log.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    # -- set-up -----------------------------------------------------------------------------

    @staticmethod
    def _is_root() -> bool:
        return os.geteuid() == 0

    def _give(self, path: Path) -> None:
        """Under root, hands `path` to the postgres user (the server must own its folders)."""
        if self._is_root():
            user = pwd.getpwnam("postgres")
            os.chown(path, user.pw_uid, user.pw_gid)

    def _as_server(self, arguments: list[str]) -> list[str]:
        # PostgreSQL's programs find their own path from the working directory, which the
        # postgres user may not be allowed into: start them in the cluster's folder.
        command = ["sh", "-c", 'cd "$0" && exec "$@"', str(self.directory)] + arguments
        if not self._is_root():
            return command
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] + command

    def _start(self) -> None:
        self.process = subprocess.Popen(self._as_server([str(self.bin / "postgres"), "-D", str(self.data)]
                                                        + [arg for s in self._settings for arg in ("-c", s)]),
                                        stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log)
        self._wait_until_ready()

    def _run_as_server(self, arguments: list[str]) -> None:
        done = subprocess.run(self._as_server(arguments), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done

    def _wait_until_ready(self) -> None:
        """postmaster.pid's eighth line says `ready` once the server accepts connections."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                lines = (self.data / "postmaster.pid").read_text().splitlines()
                if len(lines) >= 8 and lines[7].startswith("ready"):
                    return
            except (FileNotFoundError, PermissionError):
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        log = self.log
        self.stop()
        raise RuntimeError(f"the test PostgreSQL did not start: {log}")


_databases = itertools.count(1)


def new_database(cluster: PostgresCluster, prefix: str) -> str:
    """A new database of `cluster`, named apart from every other of this process's."""
    return cluster.create_database(f"{prefix}_{os.getpid()}_{next(_databases)}")
