"""The operator's commands against the database of a running server: account create, key
create, backup (a second server starts on the copy), each with --help and clear failures."""

import json
import subprocess

from api import ACCOUNT_TOKEN, KEY_SECRET, create_account, create_key
from http_clients import PythonClient
from server_process import base_environment, binary_path, record_secrets


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
    assert unknown.returncode == 1 and "Account not found." in unknown.stderr, unknown
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
