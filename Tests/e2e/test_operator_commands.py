"""The operator's commands against the database of a running server: account create, key
create, backup (a second server starts on the copy), each with --help and clear failures."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from api import ACCOUNT_TOKEN, KEY_SECRET, create_account, create_key
from http_clients import PythonClient
from server_process import base_environment, binary_path, record_secrets
from store_mode import sqlite_only


def run(workdir, *arguments, env=None):
    done = subprocess.run([str(binary_path()), *arguments], env=env or base_environment(workdir),
                          capture_output=True, text=True, timeout=30)
    record_secrets(done.stdout)
    return done


def test_an_account_made_from_the_shell_works_on_the_running_server(start_server, tmp_path):
    server = start_server()
    done = run(tmp_path, "account", "create")
    assert done.returncode == 0, done
    body = json.loads(done.stdout)
    assert set(body) == {"account", "token", "login_link"} and ACCOUNT_TOKEN.match(body["token"])
    assert body["login_link"].startswith("http://127.0.0.1:0/app/#login=mcl_")
    py = PythonClient(server.host, server.port)
    assert py.call("GET", "/v1/account", token=body["token"]).json == body["account"]


def test_a_key_made_from_the_shell_works_at_once(start_server, tmp_path):
    server = start_server()
    py = PythonClient(server.host, server.port)
    account, token = create_account(py)
    # The server has just looked a credential up and missed: that miss is not remembered.
    assert py.call("GET", "/v1/keys", token="mck_" + "B" * 43).status == 401
    done = run(tmp_path, "key", "create", "--account", account["id"], "--label", "  Shell  key ")
    assert done.returncode == 0, done
    body = json.loads(done.stdout)
    assert body["key"]["label"] == "Shell key" and KEY_SECRET.match(body["secret"])
    assert py.call("GET", "/v1/agents", token=body["secret"]).status == 200
    assert [k["id"] for k in py.call("GET", "/v1/keys", token=token).json["keys"]] == [body["key"]["id"]]


def test_key_create_refuses_a_bad_label_an_unknown_account_and_bad_arguments(start_server, tmp_path):
    start_server()
    bad = run(tmp_path, "key", "create", "--account", "acc_x", "--label", "\u200b")
    assert bad.returncode == 2 and bad.stderr.strip() == "relaydeckd: key create: --label: Must contain a visible character.", bad
    unknown = run(tmp_path, "key", "create", "--account", "acc_nobody", "--label", "x")
    assert unknown.returncode == 1, unknown
    # The refusal names the value it refused.
    assert unknown.stderr == 'relaydeckd: --account "acc_nobody": Account not found.\n', unknown
    no_link = run(tmp_path, "account", "login-link", "--account", "acc_nobody")
    assert no_link.returncode == 1 and no_link.stderr == unknown.stderr, no_link
    for arguments in (["key", "create"], ["key", "create", "--account", "a"], ["key", "make"],
                      ["key", "create", "--account", "a", "--label", "b", "--label", "c"], ["account"],
                      ["account", "create", "extra"], ["backup"]):
        done = run(tmp_path, *arguments)
        assert done.returncode == 2 and "usage:" in done.stderr, (arguments, done)
        assert done.stdout == ""


# Every command and subcommand, and the start of its usage.
EVERY_COMMAND = [
    ([], "usage: relaydeckd [command]"),
    (["version"], "usage: relaydeckd version"),
    (["check-config"], "usage: relaydeckd check-config"),
    (["resolve"], "usage: relaydeckd resolve HOST"),
    (["account"], "usage: relaydeckd account create"),
    (["account", "create"], "usage: relaydeckd account create\n"),
    (["account", "login-link"], "usage: relaydeckd account login-link --account"),
    (["key"], "usage: relaydeckd key create"),
    (["key", "create"], "usage: relaydeckd key create"),
    (["backup"], "usage: relaydeckd backup FILE"),
    (["migrate-to-postgres"], "usage: relaydeckd migrate-to-postgres --from FILE [--to URL]"),
    (["help"], "usage: relaydeckd help"),
]


def test_each_command_and_subcommand_answers_help_alike(tmp_path):
    # A setting that would make a run fail: --help must not read the settings, nor run.
    env = base_environment(tmp_path, {"LOG_LEVEL": "loud"})
    for words, start in EVERY_COMMAND:
        for flag in ("--help", "-h"):
            done = run(tmp_path, *words, flag, env=env)
            assert done.returncode == 0 and done.stdout.startswith(start) and done.stderr == "", (words, flag, done)
    assert not (tmp_path / "relaydeck.db").exists()


def test_a_wrong_use_prints_the_usage_on_stderr_and_exits_2(tmp_path):
    for arguments, start in [(["version", "x"], "usage: relaydeckd version"),
                             (["check-config", "x"], "usage: relaydeckd check-config"),
                             (["resolve"], "usage: relaydeckd resolve HOST"),
                             (["account", "login-link"], "usage: relaydeckd account login-link"),
                             (["account", "frob", "--help"], 'unknown command "account frob"')]:
        done = run(tmp_path, *arguments)
        assert done.returncode == 2 and done.stdout == "", (arguments, done)
        assert done.stderr.startswith("relaydeckd: " + start), (arguments, done)


@sqlite_only("`backup` copies the SQLite file; on PostgreSQL it refuses (test_postgres_serving.py)")
def test_a_backup_taken_while_serving_starts_a_second_server(start_server, tmp_path):
    server = start_server()
    py = PythonClient(server.host, server.port)
    account, token = create_account(py)
    key, secret = create_key(py, token, "Cursor")
    py.call("POST", "/v1/tasks", json={"title": "Keep me"}, token=secret)
    copy = tmp_path / "copy.db"
    done = run(tmp_path, "backup", str(copy))
    assert done.returncode == 0, done
    again = run(tmp_path, "backup", str(copy))
    assert again.returncode == 1 and "exists" in again.stderr, again

    restored_dir = tmp_path / "restored"
    restored_dir.mkdir()
    second = start_server({"DATABASE_PATH": str(copy)}, workdir=restored_dir, name="restored")
    other = PythonClient(second.host, second.port)
    assert other.call("GET", "/v1/account", token=token).json == account
    titles = [t["title"] for t in other.call("GET", "/v1/tasks", token=secret).json["tasks"]]
    assert titles == ["Keep me"]
    check = subprocess.run(["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1])"
                            ".execute('PRAGMA integrity_check').fetchone()[0])", str(copy)],
                           capture_output=True, text=True)
    assert check.stdout.strip() == "ok"


# -- on an installed system, as root -------------------------------------------------------

SERVICE_UID = 64123


def installed_system(tmp_path, settings: str, credential: str | None = None):
    """/etc of a system the package installed, for a private mount namespace: the relaydeck
    user in passwd, the settings file root:root 0640, a credential 0600."""
    etc = tmp_path / "etc"
    (etc / "relaydeck").mkdir(parents=True)
    passwd = Path("/etc/passwd").read_text()
    (etc / "passwd").write_text(passwd + f"relaydeck:x:{SERVICE_UID}:{SERVICE_UID}::/var/lib/relaydeck:/usr/sbin/nologin\n")
    (etc / "relaydeck" / "relaydeck.env").write_text(settings)
    os.chmod(etc / "relaydeck" / "relaydeck.env", 0o640)
    if credential is not None:
        (etc / "credstore").mkdir()
        (etc / "credstore" / "relaydeck.app-totp-secret").write_text(credential)
        os.chmod(etc / "credstore" / "relaydeck.app-totp-secret", 0o600)
    # The state directory where the service user can reach it (pytest's tmp_path is 0700 root).
    base = Path(tempfile.mkdtemp(prefix="relaydeck-installed-"))
    MADE_DIRECTORIES.append(base)
    os.chmod(base, 0o711)
    state = base / "state"
    state.mkdir()
    os.chown(state, SERVICE_UID, SERVICE_UID)
    os.chmod(state, 0o700)
    return etc, state


MADE_DIRECTORIES: list[Path] = []


@pytest.fixture(autouse=True)
def remove_state_directories():
    yield
    while MADE_DIRECTORIES:
        shutil.rmtree(MADE_DIRECTORIES.pop(), ignore_errors=True)


def run_as_root_on(etc, *arguments, env=None):
    """relaydeckd as `sudo relaydeckd ...` would run it, with `etc` mounted over /etc in a mount
    namespace of its own (nothing of this machine's /etc changes)."""
    script = 'mount --bind "$0" /etc && exec "$@"'
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(etc),
                           str(binary_path()), *arguments],
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **(env or {})}, capture_output=True, text=True,
                          timeout=30)
    record_secrets(done.stdout)
    return done


needs_root_and_unshare = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None
    or subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode != 0,
    reason="needs root and mount namespaces (unshare)")


@needs_root_and_unshare
def test_as_root_a_command_reads_the_package_settings_and_runs_as_the_service_user(tmp_path):
    etc, state = installed_system(tmp_path, "")
    database = state / "relaydeck.db"
    (etc / "relaydeck" / "relaydeck.env").write_text(f'# the package settings\nDATABASE_PATH="{database}"\n#LOG_LEVEL=info\n')
    made = run_as_root_on(etc, "account", "create")
    assert made.returncode == 0, made
    account = json.loads(made.stdout)["account"]
    key = run_as_root_on(etc, "key", "create", "--account", account["id"], "--label", "root shell")
    assert key.returncode == 0, key
    files = sorted(state.iterdir())
    assert database in files, files
    # Every file the commands made belongs to the service user, none to root.
    assert {(f.name, f.stat().st_uid, f.stat().st_gid) for f in files} == {(f.name, SERVICE_UID, SERVICE_UID) for f in files}


@needs_root_and_unshare
def test_as_root_a_command_reads_the_credential_the_service_gets(tmp_path):
    etc, state = installed_system(tmp_path, "", credential="not base32!\n")
    (etc / "relaydeck" / "relaydeck.env").write_text(f"DATABASE_PATH={state}/relaydeck.db\n")
    done = run_as_root_on(etc, "account", "create")
    # The 0600 credential was read (as root): its bad value is the refusal.
    assert done.returncode == 1, done
    assert done.stderr.startswith("relaydeckd: APP_TOTP_SECRET_FILE") and "not base32" in done.stderr, done
    assert list(state.iterdir()) == []


@needs_root_and_unshare
def test_as_root_a_bad_settings_line_is_named(tmp_path):
    etc, _ = installed_system(tmp_path, "LISTEN=127.0.0.1:8080\nnot a setting\n")
    done = run_as_root_on(etc, "account", "create")
    assert done.returncode == 1 and done.stderr == "relaydeckd: /etc/relaydeck/relaydeck.env: line 2 is not NAME=value\n", done


@needs_root_and_unshare
def test_as_root_a_database_of_the_callers_own_is_not_the_service_one(tmp_path):
    etc, state = installed_system(tmp_path, "not a setting\n")
    own = tmp_path / "own.db"
    done = run_as_root_on(etc, "account", "create", env={"DATABASE_PATH": str(own)})
    # Neither the settings file nor the service user: the command as it runs anywhere else.
    assert done.returncode == 0, done
    assert own.stat().st_uid == 0 and list(state.iterdir()) == []
