"""The .deb that `make deb` builds: its contents and control data (dpkg-deb), lintian, and a
real installation into a fresh Debian root made with debootstrap: the user, the state
directory, the conffile, the enabled socket, the binary serving from inside the root, an
upgrade that keeps the administrator's settings, remove (data kept) and purge (data gone)."""

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("timeout", 300)
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)


def version() -> str:
    return run(ROOT / "packaging/version").stdout.strip()


def test_name_control_fields_and_scripts(deb):
    arch = run("dpkg", "--print-architecture").stdout.strip()
    assert deb.name == f"relaydeck_{version()}_{arch}.deb"
    fields = {name: run("dpkg-deb", "-f", deb, name).stdout.strip()
              for name in ["Package", "Version", "Architecture", "Maintainer", "Section", "Priority", "Depends"]}
    assert fields["Package"] == "relaydeck" and fields["Version"] == version() and fields["Architecture"] == arch
    assert fields["Depends"] == "", "a static binary depends on nothing"
    info = run("dpkg-deb", "-I", deb).stdout
    for script in ["postinst", "prerm", "postrm", "conffiles", "md5sums"]:
        assert f" {script} " in info, info
    conffiles = run("dpkg-deb", "--ctrl-tarfile", deb)
    assert conffiles.returncode == 0


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


# --- A real installation ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def debian_root(tmp_path_factory):
    """A minimal Debian 12 made with debootstrap (about a minute with network)."""
    if os.geteuid() != 0:
        pytest.skip("installing into a debootstrap root needs root (chroot)")
    if shutil.which("debootstrap") is None:
        pytest.fail("debootstrap is missing: make package-deps installs it")
    root = tmp_path_factory.mktemp("debian") / "root"
    pristine = os.environ.get("RELAYDECK_PRISTINE_ROOT")
    if pristine:
        # A root debootstrap made earlier, copied (for running this test again and again).
        done = run("cp", "-a", pristine, root)
        assert done.returncode == 0, done.stderr
    else:
        # debootstrap's own default mirror, unless DEBIAN_MIRROR names another.
        mirror = os.environ.get("DEBIAN_MIRROR")
        done = run("debootstrap", "--variant=minbase", "bookworm", root, *([mirror] if mirror else []), timeout=1200)
        if done.returncode != 0:
            source = mirror or "debootstrap's default mirror"
            pytest.fail(f"debootstrap failed (network to {source}?):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
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

    done = chroot(root, "dpkg", "-i", package)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "relaydeck" in chroot(root, "dpkg-query", "-W", "-f", "${Package} ${Status}\n", "relaydeck").stdout
    assert (root / "usr/bin/relaydeckd").exists()

    # The system user, its group, and the state directory it owns.
    user = chroot(root, "getent", "passwd", "relaydeck").stdout.strip().split(":")
    assert user[0] == "relaydeck" and int(user[2]) < 1000 and user[5] == "/var/lib/relaydeck"
    assert user[6] == "/usr/sbin/nologin"
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

    # Purge: the data, the settings and the masks go; the user stays (Debian's habit).
    done = chroot(root, "dpkg", "-P", "relaydeck")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not state.exists() and not (root / "etc/relaydeck").exists()
    assert not mask.is_symlink() and not (root / "etc/systemd/system/sockets.target.wants/relaydeck.socket").exists()
    assert chroot(root, "getent", "passwd", "relaydeck").returncode == 0

    # And a fresh install after the purge starts clean again.
    done = chroot(root, "dpkg", "-i", package)
    assert done.returncode == 0, done.stdout + done.stderr
    assert state.is_dir() and not (state / "relaydeck.db").exists()
