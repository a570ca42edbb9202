"""The .deb that `make deb` builds: its contents and control data (dpkg-deb), lintian, a real
installation into a fresh Debian root made with debootstrap (the user made by
systemd-sysusers from the package's sysusers.d file, the state directory, the conffile, the
enabled socket, the binary serving from inside the root, an upgrade that keeps the
administrator's settings, remove (data kept), purge (the database kept in /var/backups)), and
the same root booted with systemd as PID 1: the socket-activated service restarted, reloaded
and upgraded while a client keeps connecting."""

import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("timeout", 300)
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)


def version() -> str:
    return run(ROOT / "packaging/version").stdout.strip()


# debhelper's dh_installsysusers adds the same to misc:Depends: systemd-sysusers comes with
# systemd, or alone in systemd-standalone-sysusers; later releases name it systemd-sysusers.
SYSUSERS_DEPENDS = "systemd | systemd-standalone-sysusers | systemd-sysusers"


def test_name_control_fields_and_scripts(deb):
    arch = run("dpkg", "--print-architecture").stdout.strip()
    assert deb.name == f"relaydeck_{version()}_{arch}.deb"
    fields = {name: run("dpkg-deb", "-f", deb, name).stdout.strip()
              for name in ["Package", "Version", "Architecture", "Maintainer", "Section", "Priority", "Depends"]}
    assert fields["Package"] == "relaydeck" and fields["Version"] == version() and fields["Architecture"] == arch
    assert fields["Depends"] == SYSUSERS_DEPENDS, "the static binary needs no library; the postinst needs systemd-sysusers"
    info = run("dpkg-deb", "-I", deb).stdout
    for script in ["postinst", "prerm", "postrm", "conffiles", "md5sums"]:
        assert f" {script} " in info, info
    conffiles = run("dpkg-deb", "--ctrl-tarfile", deb)
    assert conffiles.returncode == 0


def test_the_maintainer_is_the_projects_own_and_no_homepage_is_invented(deb):
    maintainer = run("dpkg-deb", "-f", deb, "Maintainer").stdout.strip()
    assert maintainer.startswith("Relaydeck Server maintainers <") and maintainer.endswith(">"), maintainer
    # The changelog's entries are signed by the same maintainer.
    trailer = re.search(r"^ -- (.+?)  ", (ROOT / "packaging/debian/changelog").read_text(), re.M).group(1)
    assert trailer == maintainer
    # The project has no public home page; the field is left out rather than made up.
    assert run("dpkg-deb", "-f", deb, "Homepage").stdout.strip() == ""
    assert "Homepage" not in (ROOT / "packaging/debian/control.in").read_text()


def test_files_owners_and_modes(deb):
    listing = run("dpkg-deb", "-c", deb).stdout.splitlines()
    entries = {}
    for line in listing:
        mode, owner, _size, _date, _time, path = line.split(None, 5)
        entries[path] = (mode, owner)
    expected = {
        "./usr/bin/relaydeckd": "-rwxr-xr-x",
        "./lib/systemd/system/relaydeck.service": "-rw-r--r--",
        "./lib/systemd/system/relaydeck.socket": "-rw-r--r--",
        "./etc/relaydeck/relaydeck.env": "-rw-r-----",
        "./usr/share/doc/relaydeck/copyright": "-rw-r--r--",
        "./usr/share/doc/relaydeck/changelog.gz": "-rw-r--r--",
        "./usr/share/man/man1/relaydeckd.1.gz": "-rw-r--r--",
        "./usr/share/bash-completion/completions/relaydeckd": "-rw-r--r--",
        "./usr/share/doc/relaydeck/examples/prometheus.yml": "-rw-r--r--",
        "./usr/share/doc/relaydeck/README.Debian": "-rw-r--r--",
        "./usr/lib/sysusers.d/relaydeck.conf": "-rw-r--r--",
    }
    for path, mode in expected.items():
        assert entries.get(path, ("missing",))[0] == mode, (path, entries.get(path))
    assert {owner for _, owner in entries.values()} == {"root/root"}
    # The units and the settings are the repository's own files.
    extracted = Path(run("mktemp", "-d").stdout.strip())
    try:
        run("dpkg-deb", "-x", deb, extracted)
        for unit in ["relaydeck.service", "relaydeck.socket"]:
            assert (extracted / "lib/systemd/system" / unit).read_bytes() == (ROOT / "systemd" / unit).read_bytes()
        assert (extracted / "etc/relaydeck/relaydeck.env").read_bytes() == (ROOT / "etc/relaydeck.env").read_bytes()
        completion = "usr/share/bash-completion/completions/relaydeckd"
        assert (extracted / completion).read_bytes() == (ROOT / "packaging/bash-completion/relaydeckd").read_bytes()
        scrape = extracted / "usr/share/doc/relaydeck/examples/prometheus.yml"
        assert scrape.read_bytes() == (ROOT / "packaging/prometheus/relaydeck.yml").read_bytes()
        readme = extracted / "usr/share/doc/relaydeck/README.Debian"
        assert readme.read_bytes() == (ROOT / "packaging/debian/README.Debian").read_bytes()
        sysusers = extracted / "usr/lib/sysusers.d/relaydeck.conf"
        assert sysusers.read_bytes() == (ROOT / "packaging/debian/relaydeck.sysusers").read_bytes()
        assert (extracted / "usr/share/doc/relaydeck/examples/grafana-dashboard.json").read_bytes() == (ROOT / "packaging/grafana/relaydeck.json").read_bytes()
        binary = extracted / "usr/bin/relaydeckd"
        assert run(binary, "version").stdout.split()[-1] == version()
        # Stripped: no symbol table left.
        assert ".symtab" not in run("readelf", "-S", binary).stdout
    finally:
        shutil.rmtree(extracted)


def test_every_setting_of_the_readme_is_in_the_settings_file():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("| variable | meaning | default |", 1)[1].split("\n\n", 1)[0]
    names = set()
    for row in table.splitlines()[2:]:
        first = row.split("|")[1]
        names |= {part.strip("` ") for part in first.replace("/", ",").split(",") if part.strip("` ")}
    names.discard("CREDENTIALS_DIRECTORY")
    env = (ROOT / "etc/relaydeck.env").read_text()
    for name in sorted(names):
        assert f"\n#{name}=" in env, f"{name} is not in etc/relaydeck.env"


def test_lintian_finds_no_error_and_no_warning(deb):
    assert shutil.which("lintian"), "lintian is missing: make package-deps installs it"
    done = run("lintian", "--fail-on", "error,warning", "--no-tag-display-limit", deb, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [l for l in done.stdout.splitlines() if l.startswith(("E:", "W:"))], done.stdout


def sysusers_lines() -> list[list[str]]:
    text = (ROOT / "packaging/debian/relaydeck.sysusers").read_text()
    return [shlex.split(line) for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_sysusers_file_declares_the_user_and_group_the_service_runs_as(tmp_path):
    assert sysusers_lines() == [["u", "relaydeck", "-", "Relaydeck Server", "/var/lib/relaydeck", "/usr/sbin/nologin"]]
    service = (ROOT / "systemd/relaydeck.service").read_text()
    assert "\nUser=relaydeck\n" in service and "\nGroup=relaydeck\n" in service
    # systemd-sysusers itself reads it as a user and a group of the same name, in an empty root.
    (tmp_path / "etc").mkdir()
    for name in ["passwd", "group"]:
        (tmp_path / "etc" / name).write_text("root:x:0:0:root:/root:/bin/sh\n" if name == "passwd" else "root:x:0:\n")
    done = run("systemd-sysusers", "--dry-run", f"--root={tmp_path}", ROOT / "packaging/debian/relaydeck.sysusers")
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "Creating group 'relaydeck'" in said and "Creating user 'relaydeck' (Relaydeck Server)" in said, said


def test_readme_debian_says_where_everything_is_and_what_purge_keeps():
    readme = (ROOT / "packaging/debian/README.Debian").read_text()
    service = (ROOT / "systemd/relaydeck.service").read_text()
    postrm = (ROOT / "packaging/debian/postrm").read_text()
    credentials = re.findall(r"^LoadCredential=[A-Z_]+:(\S+)$", service, re.M)
    assert credentials, "the unit loads no credential"
    for path in ["/etc/relaydeck/relaydeck.env", "/var/lib/relaydeck/relaydeck.db", "/usr/lib/sysusers.d/relaydeck.conf",
                 *[f"/etc/credstore/{name}" for name in credentials]]:
        assert path in readme, f"README.Debian does not name {path}"
    assert "journalctl -u relaydeck.service -p err" in readme
    assert "sudo relaydeckd account create" in readme
    # What purge keeps is where the postrm puts it, and README.Debian says how to delete it.
    assert "backups=/var/backups" in postrm and "kept=$backups/relaydeck-$stamp" in postrm
    assert "/var/backups/relaydeck-<UTC time>" in readme
    for removal in ["sudo rm -r /var/backups/relaydeck-*", "sudo rm /etc/credstore/relaydeck.*", "sudo userdel relaydeck"]:
        assert removal in readme, removal


# --- A real installation ------------------------------------------------------------------------

@pytest.fixture(scope="session")
def pristine_root(tmp_path_factory):
    """A minimal Debian 12 with systemd (the package depends on its systemd-sysusers), made
    with debootstrap (a few minutes with network), or RELAYDECK_PRISTINE_ROOT made before."""
    if os.geteuid() != 0:
        pytest.skip("installing into a debootstrap root needs root (chroot)")
    pristine = os.environ.get("RELAYDECK_PRISTINE_ROOT")
    if pristine:
        yield Path(pristine)
        return
    if shutil.which("debootstrap") is None:
        pytest.fail("debootstrap is missing: make package-deps installs it")
    root = tmp_path_factory.mktemp("pristine") / "root"
    # debootstrap's own default mirror, unless DEBIAN_MIRROR names another.
    mirror = os.environ.get("DEBIAN_MIRROR")
    done = run("debootstrap", "--variant=minbase", "--include=systemd,procps", "bookworm", root,
               *([mirror] if mirror else []), timeout=1800)
    if done.returncode != 0:
        source = mirror or "debootstrap's default mirror"
        pytest.fail(f"debootstrap failed (network to {source}?):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def copy_of(pristine: Path, tmp_path_factory, name: str) -> Path:
    root = tmp_path_factory.mktemp(name) / "root"
    done = run("cp", "-a", pristine, root)
    assert done.returncode == 0, done.stderr
    assert (root / "lib/systemd/systemd").exists() and (root / "bin/systemd-sysusers").exists(), (
        f"{pristine} has no systemd: make it with debootstrap --variant=minbase --include=systemd,procps bookworm")
    return root


@pytest.fixture(scope="module")
def debian_root(pristine_root, tmp_path_factory):
    """A copy of the pristine root for chroot, with /proc."""
    root = copy_of(pristine_root, tmp_path_factory, "debian")
    # Every real system has /proc (under systemd too, with ProtectProc=invisible); the Swift
    # runtime reads /proc/self to find itself and stops without it.
    assert run("mount", "-t", "proc", "proc", root / "proc").returncode == 0
    try:
        yield root
    finally:
        run("umount", root / "proc")
        shutil.rmtree(root, ignore_errors=True)


def chroot(root, *argv, **kwargs):
    return run("chroot", root, *argv, **kwargs)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_install_upgrade_remove_and_purge_in_a_fresh_debian(debian_root, deb):
    root = debian_root
    shutil.copy(deb, root / "tmp" / deb.name)
    package = f"/tmp/{deb.name}"

    # The user comes from the sysusers.d file through systemd-sysusers: with passwd's tools
    # out of the way (the package does not depend on passwd), the install still makes it.
    hidden = [root / "usr/sbin" / tool for tool in ["useradd", "groupadd", "adduser", "addgroup"]
              if (root / "usr/sbin" / tool).exists()]
    assert hidden, "no useradd in the root: the test would prove nothing"
    for tool in hidden:
        tool.rename(tool.with_name(tool.name + ".hidden"))
    try:
        done = chroot(root, "dpkg", "-i", package)
    finally:
        for tool in hidden:
            tool.with_name(tool.name + ".hidden").rename(tool)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Creating user 'relaydeck' (Relaydeck Server)" in done.stdout + done.stderr, done.stdout + done.stderr
    assert "relaydeck" in chroot(root, "dpkg-query", "-W", "-f", "${Package} ${Status}\n", "relaydeck").stdout
    assert (root / "usr/bin/relaydeckd").exists()
    assert (root / "usr/lib/sysusers.d/relaydeck.conf").exists()
    assert (root / "usr/share/doc/relaydeck/README.Debian").exists()

    # The system user and its group as the sysusers.d file declares them, and the state
    # directory it owns.
    user = chroot(root, "getent", "passwd", "relaydeck").stdout.strip().split(":")
    assert user[0] == "relaydeck" and int(user[2]) < 1000 and user[4] == "Relaydeck Server"
    assert user[5] == "/var/lib/relaydeck" and user[6] == "/usr/sbin/nologin"
    group = chroot(root, "getent", "group", "relaydeck").stdout.strip().split(":")
    assert group[0] == "relaydeck" and group[2] == user[3]
    state = root / "var/lib/relaydeck"
    info = state.stat()
    assert info.st_mode & 0o777 == 0o700 and info.st_uid == int(user[2]) and info.st_gid == int(user[3])

    # The conffile, and the socket enabled the way deb-systemd-helper does it (no systemd runs).
    conffiles = chroot(root, "dpkg-query", "-W", "-f", "${Conffiles}", "relaydeck").stdout
    assert "/etc/relaydeck/relaydeck.env" in conffiles
    assert (root / "etc/systemd/system/sockets.target.wants/relaydeck.socket").is_symlink()

    # The binary runs inside the root, as the service user: an account made from the shell,
    # then the server on a loopback port, answering from the host.
    env_prefix = ["env", "-i", "DATABASE_PATH=/var/lib/relaydeck/relaydeck.db"]
    made = chroot(root, "setpriv", "--reuid=relaydeck", "--regid=relaydeck", "--clear-groups",
                  *env_prefix, "/usr/bin/relaydeckd", "account", "create")
    assert made.returncode == 0, made.stderr
    assert '"token":"mca_' in made.stdout
    port = free_port()
    server = subprocess.Popen(["chroot", root, "setpriv", "--reuid=relaydeck", "--regid=relaydeck", "--clear-groups",
                               *env_prefix, f"LISTEN=127.0.0.1:{port}", "/usr/bin/relaydeckd"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, server.stdout.read() if server.poll() is not None else "no answer"
                time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
            assert b"Relaydeck Server" in answer.read()
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) == 0
        server.stdout.close()
    assert (state / "relaydeck.db").stat().st_uid == int(user[2])

    # An upgrade (the same package again) keeps the administrator's settings and the data.
    settings = root / "etc/relaydeck/relaydeck.env"
    settings.write_text(settings.read_text() + "\nLOG_LEVEL=debug\n")
    done = chroot(root, "dpkg", "-i", "--force-confold", package)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LOG_LEVEL=debug" in settings.read_text()
    assert (state / "relaydeck.db").exists()

    # Remove: the program goes, the data and the settings stay, the units are masked.
    done = chroot(root, "dpkg", "-r", "relaydeck")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (root / "usr/bin/relaydeckd").exists()
    assert (state / "relaydeck.db").exists() and settings.exists()
    mask = root / "etc/systemd/system/relaydeck.service"
    assert mask.is_symlink() and os.readlink(mask) == "/dev/null"

    # Purge: the settings and the masks go, the user stays (Debian's habit), and the database
    # is not deleted: the state directory moves to /var/backups, and the purge says where.
    backups = root / "var/backups"
    before = set(backups.glob("relaydeck-*"))
    done = chroot(root, "dpkg", "-P", "relaydeck")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not state.exists() and not (root / "etc/relaydeck").exists()
    assert not mask.is_symlink() and not (root / "etc/systemd/system/sockets.target.wants/relaydeck.socket").exists()
    assert chroot(root, "getent", "passwd", "relaydeck").returncode == 0
    kept = sorted(set(backups.glob("relaydeck-*")) - before)
    assert len(kept) == 1 and re.fullmatch(r"relaydeck-\d{8}T\d{6}Z", kept[0].name), kept
    copy = kept[0]
    assert f"/var/backups/{copy.name}" in done.stdout + done.stderr, done.stdout + done.stderr
    info = copy.stat()
    assert info.st_mode & 0o777 == 0o700 and info.st_uid == 0 and info.st_gid == 0
    assert (copy / "relaydeck.db").exists() and (copy / "relaydeck.db").stat().st_uid == int(user[2])
    # The copy is the database itself: the account made above is in it.
    with sqlite3.connect(f"file:{copy / 'relaydeck.db'}?mode=ro", uri=True) as kept_db:
        assert kept_db.execute("SELECT count(*) FROM accounts").fetchone() == (1,)

    # And a fresh install after the purge starts clean again.
    done = chroot(root, "dpkg", "-i", package)
    assert done.returncode == 0, done.stdout + done.stderr
    assert state.is_dir() and not (state / "relaydeck.db").exists()

    # A state directory the administrator emptied before the purge is deleted, and nothing
    # more is kept.
    done = chroot(root, "dpkg", "-P", "relaydeck")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not state.exists()
    assert sorted(set(backups.glob("relaydeck-*")) - before) == kept
    assert "/var/backups" not in done.stdout + done.stderr


# --- Under a real systemd ----------------------------------------------------------------------

# Units of the root that would act on the host rather than the container: gettys on the host's
# terminals, kernel settings and modules (/proc/sys is read-only in the container anyway).
HOST_UNITS = ["console-getty.service", "getty@.service", "getty-static.service", "systemd-sysctl.service",
              "systemd-modules-load.service"]


def writable_cgroup2() -> tuple[Path | None, str]:
    """The directory of this process's cgroup in a cgroup2 hierarchy, or why there is none."""
    mounts = [line.split(" - ")[0].split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
              if " - cgroup2 " in line]
    own = [line.split("::", 1)[1] for line in Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::")]
    if not mounts or not own:
        return None, "no cgroup2 hierarchy is mounted"
    place = Path(mounts[0]) / own[0].lstrip("/")
    if not os.access(place, os.W_OK):
        return None, f"{place} (this process's cgroup2 cgroup) is not writable"
    return place, ""


class BootedSystemd:
    """A copy of the Debian root booted with systemd as PID 1 (Tests/package/boot-systemd)."""

    def __init__(self, root: Path, cgroup: Path, console: Path):
        self.root, self.cgroup, self.console = root, cgroup, console
        self.boot = subprocess.Popen([str(ROOT / "Tests/package/boot-systemd"), str(root), str(cgroup), str(console)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.pid = None

    def wait_running(self, timeout=60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.boot.poll() is not None:
                return f"the boot ended ({self.boot.returncode}): {self.boot.stdout.read()}"
            children = Path(f"/proc/{self.boot.pid}/task/{self.boot.pid}/children")
            pids = children.read_text().split() if children.exists() else []
            if pids:
                self.pid = int(pids[0])
                state = self.run("systemctl", "is-system-running").stdout.strip()
                if state in ("running", "degraded"):
                    return ""
            time.sleep(0.2)
        return f"systemd is not running after {timeout} s: {self.run('systemctl', 'list-units', '--failed').stdout}"

    def run(self, *argv, **kwargs) -> subprocess.CompletedProcess:
        return run("nsenter", "-t", self.pid, "--all", *argv, **kwargs)

    def main_pid(self) -> int:
        return int(self.run("systemctl", "show", "-P", "MainPID", "relaydeck.service").stdout.strip())

    def socket_since(self) -> str:
        return self.run("systemctl", "show", "-P", "ActiveEnterTimestampMonotonic", "relaydeck.socket").stdout.strip()

    def journal(self) -> str:
        return self.run("journalctl", "--no-pager", "-o", "cat", "-u", "relaydeck.service", "-u", "relaydeck.socket").stdout[-4000:]

    def poweroff(self):
        if self.pid is not None:
            os.kill(self.pid, signal.SIGRTMIN + 4)
        try:
            self.boot.wait(timeout=30)
        except subprocess.TimeoutExpired:
            if self.pid is not None:
                os.kill(self.pid, signal.SIGKILL)
            self.boot.wait(timeout=10)
        self.boot.stdout.close()
        # The container's cgroups, deepest first (empty once its processes are gone).
        for path in sorted((p for p in self.cgroup.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            path.rmdir()
        self.cgroup.rmdir()


class Client(threading.Thread):
    """Opens a new connection for every GET /health, as fast as answers come, and counts what
    happens: an answer, a refused connection, or another failure."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.answers: list[float] = []
        self.refused = 0
        self.failures: dict[str, int] = {}
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=10) as answer:
                    assert answer.status == 200
                    answer.read()
                self.answers.append(time.monotonic())
            except urllib.error.URLError as error:
                if isinstance(error.reason, ConnectionRefusedError):
                    self.refused += 1
                else:
                    self.failures[repr(error.reason)] = self.failures.get(repr(error.reason), 0) + 1
            except ConnectionRefusedError:
                self.refused += 1
            except OSError as error:
                self.failures[repr(error)] = self.failures.get(repr(error), 0) + 1

    def answered_after(self, moment: float) -> bool:
        return bool(self.answers) and self.answers[-1] > moment


def newer_version_of(deb: Path, directory: Path) -> tuple[Path, str]:
    """The same package as a later version, for a real upgrade (prerm upgrade, postinst
    configure with the old version)."""
    tree = directory / "tree"
    assert run("dpkg-deb", "-R", deb, tree).returncode == 0
    control = tree / "DEBIAN/control"
    newer = version() + "+upgrade1"
    control.write_text(re.sub(r"^Version: .*$", f"Version: {newer}", control.read_text(), flags=re.M))
    built = directory / f"relaydeck_{newer}.deb"
    done = run("dpkg-deb", "--root-owner-group", "-Znone", "--build", tree, built)
    assert done.returncode == 0, done.stderr
    return built, newer


def wait_for(what, timeout=20, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(interval)
    return what()


def test_under_systemd_a_restart_a_reload_and_an_upgrade_refuse_no_connection(pristine_root, deb, tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("booting systemd in a container needs root")
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        pytest.skip("booting systemd needs unshare and nsenter (util-linux)")
    parent, why = writable_cgroup2()
    if parent is None:
        pytest.skip(f"this machine cannot give a container a cgroup tree of its own: {why}")
    probe = run("unshare", "--cgroup", "--pid", "--fork", "--mount", "--uts", "--ipc", "true")
    if probe.returncode != 0:
        pytest.skip(f"this machine cannot make the namespaces of a container: {probe.stderr.strip()}")

    root = copy_of(pristine_root, tmp_path_factory, "booted")
    for unit in HOST_UNITS:
        (root / "etc/systemd/system" / unit).symlink_to("/dev/null")
    # The container shares the host's network: the socket listens on a free port of its own,
    # the way the README says to move it (a drop-in, the unit untouched).
    port = free_port()
    dropin = root / "etc/systemd/system/relaydeck.socket.d"
    dropin.mkdir(parents=True)
    (dropin / "listen.conf").write_text(f"[Socket]\nListenStream=\nListenStream=127.0.0.1:{port}\n")
    shutil.copy(deb, root / "root" / deb.name)
    newer, newer_version = newer_version_of(deb, tmp_path_factory.mktemp("newer"))
    shutil.copy(newer, root / "root" / newer.name)

    cgroup = parent / f"relaydeck-test-{os.getpid()}"
    cgroup.mkdir()
    console = root.parent / "console"
    console.touch()
    booted = BootedSystemd(root, cgroup, console)
    client = None
    try:
        failed = booted.wait_running()
        assert not failed, failed

        # The install under a running systemd: the user, the socket enabled and listening,
        # the service not started until a connection comes (socket activation).
        done = booted.run("dpkg", "-i", f"/root/{deb.name}")
        assert done.returncode == 0, done.stdout + done.stderr
        assert booted.run("getent", "passwd", "relaydeck").returncode == 0
        assert booted.run("systemctl", "is-enabled", "relaydeck.socket").stdout.strip() == "enabled"
        assert booted.run("systemctl", "is-active", "relaydeck.socket").stdout.strip() == "active"
        assert booted.run("systemctl", "is-active", "relaydeck.service").stdout.strip() == "inactive"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=20) as answer:
            assert answer.status == 200
        assert booted.run("systemctl", "is-active", "relaydeck.service").stdout.strip() == "active", booted.journal()
        socket_since = booted.socket_since()

        client = Client(port)
        client.start()
        assert wait_for(lambda: len(client.answers) > 20), "the client gets no answers"

        # A restart: a new server process; the socket is not restarted with it.
        first = booted.main_pid()
        restarted_at = time.monotonic()
        done = booted.run("systemctl", "restart", "relaydeck.service")
        assert done.returncode == 0, done.stderr + booted.journal()
        second = booted.main_pid()
        assert second not in (0, first)
        assert booted.socket_since() == socket_since, "the restart of the service restarted the socket"
        assert wait_for(lambda: client.answered_after(restarted_at + 0.5)), "no answer after the restart"

        # A reload: SIGHUP to the same process (ExecReload=), which goes on answering.
        done = booted.run("systemctl", "reload", "relaydeck.service")
        assert done.returncode == 0, done.stderr + booted.journal()
        assert booted.main_pid() == second

        # An upgrade to a later version: the postinst's try-restart runs the new binary in a
        # new process while the socket stays open.
        upgraded_at = time.monotonic()
        done = booted.run("dpkg", "-i", f"/root/{newer.name}")
        assert done.returncode == 0, done.stdout + done.stderr
        status = booted.run("dpkg-query", "-W", "-f", "${Version} ${Status}", "relaydeck").stdout
        assert status == f"{newer_version} install ok installed", status
        third = booted.main_pid()
        assert third not in (0, second), "the upgrade did not restart the server"
        assert booted.socket_since() == socket_since, "the upgrade restarted the socket"
        assert wait_for(lambda: client.answered_after(upgraded_at + 0.5)), "no answer after the upgrade"
        assert booted.run("systemctl", "is-active", "relaydeck.service").stdout.strip() == "active"

        client.done.set()
        client.join(timeout=30)
        assert client.refused == 0, f"{client.refused} connections refused (of {len(client.answers)} answered)"
        # A connection the old process accepted and had not read when SIGTERM came is still
        # answered (its first request is awaited for a moment), then closed.
        assert not client.failures, f"connections closed without an answer across the restarts: {client.failures}"
        assert client.answers, "the client got no answer at all"
    finally:
        if client is not None:
            client.done.set()
            client.join(timeout=30)
        booted.poweroff()
        shutil.rmtree(root.parent, ignore_errors=True)
