"""The server's own website: `/`, `/docs/...` and `/install` (HTML pages with strict security
headers, HEAD, no activity entries), and the install script itself, run against a fake home
directory with stand-in agent programs, with dash, with bash, and (the cases marked with the
SHELLS parameter) with a stand-in for a Mac's sh and its BSD tools (bsd_tools.py: what it
approximates and what only a real Mac would show)."""

import base64
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import json5
import pytest

from api import create_account, create_key
from bsd_tools import macos_sh
from http_clients import PythonClient
from server_process import PACKAGE_ROOT

PAGES = ["/", "/docs", "/docs/agents", "/docs/mcp", "/docs/api", "/docs/settings"]


def assert_site_headers(response, content_type: str) -> None:
    assert response.header("Content-Type") == content_type, response
    csp = response.header("Content-Security-Policy")
    assert csp is not None and "unsafe-inline" not in csp and "default-src 'none'" in csp, csp
    assert response.header("X-Content-Type-Options") == "nosniff"
    assert response.header("X-Frame-Options") == "DENY"
    assert response.header("Referrer-Policy") == "no-referrer"


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_html_with_strict_headers(client, server, path):
    response = client.call("GET", path)
    assert response.status == 200, response
    assert_site_headers(response, "text/html; charset=utf-8")
    html = response.text
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    # The one inline style is allowed by its hash, and by nothing else.
    style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}';" in response.header("Content-Security-Policy")
    assert "<script" not in html and " style=" not in html
    # Without PUBLIC_URL the address comes from the Host header: nothing may cache it.
    assert response.header("Cache-Control") == "no-store"


@pytest.mark.parametrize("path", PAGES + ["/install"])
def test_head_gives_the_headers_without_a_body(client, path):
    got = client.call("GET", path)
    head = client.call("HEAD", path)
    assert head.status == 200 and head.body == b""
    assert head.header("Content-Length") == str(len(got.body))
    assert head.header("Content-Security-Policy") == got.header("Content-Security-Policy")


def test_home_page_says_version_and_features_off_by_default(py, server):
    html = py.call("GET", "/").text
    version = subprocess.run([str(PACKAGE_ROOT / ".build/release/relaydeckd"), "version"],
                             capture_output=True, text=True).stdout.split()[-1]
    assert f"Version {version}." in html
    for feature in ["Push notifications (APNs)", "App Attest for new accounts", "App codes"]:
        row = re.search(re.escape(feature) + r".*?</tr>", html).group(0)
        assert '<span class="off">off</span>' in row, row
    assert f"curl -fsSL http://127.0.0.1:{server.port}/install | sh" in html


def test_home_page_shows_features_on_and_never_a_secret(start_server):
    secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
    server = start_server({"APP_TOTP_SECRET": secret, "PUBLIC_URL": "https://relaydeck.example.com"})
    response = PythonClient(server.host, server.port).call("GET", "/")
    html = response.text
    row = re.search(r"App codes.*?</tr>", html).group(0)
    assert '<span class="on">on</span>' in row
    assert secret not in html
    assert "<code>https://relaydeck.example.com/mcp</code>" in html
    # From PUBLIC_URL, the same for every client: a cache may keep it.
    assert response.header("Cache-Control") == "no-cache"


def test_unknown_docs_page_is_404_and_methods_are_405(py):
    response = py.call("GET", "/docs/nothing-here")
    assert response.status == 404 and response.json == {"error": {"code": "not_found", "message": "Not found."}}
    response = py.call("POST", "/install", json={})
    assert response.status == 405 and response.header("Allow") == "GET, HEAD"


def test_a_host_header_that_is_not_a_host_is_refused(py):
    for host in ['evil";rm -rf ~;"', "a b", "x'y", "[::1"]:
        response = py.call("GET", "/install", headers={"Host": host})
        assert response.status == 400, (host, response)
        assert response.json["error"]["code"] == "bad_request"
    assert py.call("GET", "/install", headers={"Host": "[::1]:8080"}).status == 200


def test_site_requests_leave_no_activity_entry(py):
    account, token = create_account(py)
    key, secret = create_key(py, token, "Site reader")
    for path in PAGES + ["/install"]:
        assert py.call("GET", path, token=secret).status == 200
    entries = py.call("GET", f"/v1/keys/{key['id']}/activity", token=token).json["items"]
    assert entries == []


def test_install_is_the_script_with_this_servers_address(py, server):
    response = py.call("GET", "/install")
    assert response.status == 200
    assert_site_headers(response, "text/plain; charset=utf-8")
    source = (PACKAGE_ROOT / "site/install.sh").read_text()
    # The binary carries site/install.sh (through site/generate); they must not drift apart.
    assert response.text == source.replace("@PUBLIC_URL@", f"http://127.0.0.1:{server.port}")
    assert "@PUBLIC_URL@" not in response.text


# --- The install script, run -------------------------------------------------------------------

CLAUDE_STANDIN = r'''#!/usr/bin/env python3
# A stand-in for Claude Code's `claude mcp add/remove --scope user`: it logs its arguments and
# keeps ~/.claude.json the way the real one does (refusing to add a name that exists).
import json, os, sys
home = os.environ["HOME"]
with open(os.path.join(home, "claude-calls.log"), "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\n")
path = os.path.join(home, ".claude.json")
data = json.load(open(path)) if os.path.exists(path) else {}
servers = data.setdefault("mcpServers", {})
args = sys.argv[1:]
if args[:2] == ["mcp", "remove"]:
    name = args[-1]
    if name not in servers:
        sys.exit(f"No MCP server named {name}")
    del servers[name]
elif args[:2] == ["mcp", "add-json"]:
    rest = [a for a in args[2:] if a not in ("--scope", "-s", "user")]
    name, entry = rest
    if name in servers:
        sys.exit(f"MCP server {name} already exists in user config")
    servers[name] = json.loads(entry)
elif args[:2] == ["mcp", "add"]:
    rest = args[2:]
    opts, positional, i = {}, [], 0
    while i < len(rest):
        if rest[i].startswith("--"):
            opts.setdefault(rest[i], []).append(rest[i + 1]); i += 2
        else:
            positional.append(rest[i]); i += 1
    name, url = positional
    if name in servers:
        sys.exit(f"MCP server {name} already exists in user config")
    headers = dict(h.split(": ", 1) for h in opts.get("--header", []))
    servers[name] = {"type": opts["--transport"][0], "url": url, "headers": headers}
else:
    sys.exit("unexpected call")
json.dump(data, open(path, "w"), indent=2)
'''

OTHER_CLAUDE_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}


def fake_home(tmp_path: Path, with_claude_program: bool, home_name: str = "home") -> tuple[Path, Path]:
    home = tmp_path / home_name
    bin_dir = tmp_path / "bin"
    for folder in [home / ".claude", home / ".codex", home / ".cursor", home / ".gemini", bin_dir]:
        folder.mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps(
        {"numStartups": 7, "mcpServers": {"other": {"type": "stdio", "command": "other-mcp"}}}))
    (home / ".claude" / "settings.json").write_text(json.dumps(
        {"model": "opus", "hooks": {"PreToolUse": [OTHER_CLAUDE_HOOK], "Stop": [OTHER_CLAUDE_HOOK]}}))
    (home / ".codex" / "config.toml").write_text(
        'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other-mcp"\nargs = ["--x"]\n\n'
        '[profiles.fast]\nmodel = "mini"\n')
    (home / ".codex" / ".env").write_text("OTHER_TOKEN=1\n")
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"other": {"url": "https://other/mcp"}}}))
    (home / ".gemini" / "settings.json").write_text(json.dumps({"theme": "Dracula", "mcpServers": {}}))
    # Made by hand or by the agent with the usual umask: readable by every user of the machine.
    for path in home.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    # curl as itself, but every command line it gets is logged: the key must never be on one.
    curl = bin_dir / "curl"
    curl.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >>"{tmp_path}/curl-argv.log"\nexec {shutil.which("curl")} "$@"\n')
    curl.chmod(0o755)
    # So are python3's and node's, which edit the files. python3 is the interpreter itself (this
    # one's, 3.11 or later), not a version manager's shim, which needs tools of its own.
    editors = {"python3": os.path.realpath(sys.executable), "node": shutil.which("node")}
    for program, real in editors.items():
        if real:
            wrapper = bin_dir / program
            wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >>"{tmp_path}/editor-argv.log"\n'
                               f'exec {shlex.quote(real)} "$@"\n')
            wrapper.chmod(0o755)
    if with_claude_program:
        claude = bin_dir / "claude"
        claude.write_text(CLAUDE_STANDIN)
        claude.chmod(0o755)
    return home, bin_dir


# The shells the script is run with: Debian's sh, bash, and macOS's sh with its BSD tools
# (bsd_tools.py).
SHELLS = ["dash", "bash", "macos-sh"]


def shell_command(shell: str, bin_dir: Path, path: str) -> tuple[list[str], dict]:
    """The command line that runs a script file with SHELL, and its environment but HOME."""
    if shell == "macos-sh":
        # The stand-ins' folder is the whole PATH, but the fake home's programs (curl, python3,
        # node, claude), as on a Mac that has them.
        argv, extra, tools = macos_sh(bin_dir.parent)
        return argv, {"PATH": f"{bin_dir}:{tools}", "LANG": "C.UTF-8", **extra}
    return [shell], {"PATH": f"{bin_dir}:{path}", "LANG": "C.UTF-8"}


def run_install(script: Path, home: Path, bin_dir: Path, *args, key_env: str | None = None, stdin=subprocess.DEVNULL,
                shell: str = "dash", path: str = "/usr/local/bin:/usr/bin:/bin"):
    argv, env = shell_command(shell, bin_dir, path)
    env["HOME"] = str(home)
    if key_env is not None:
        env["RELAYDECK_API_KEY"] = key_env
    # Not a terminal: the script must not wait for a question nobody can answer.
    return subprocess.run([*argv, str(script), *args], env=env, capture_output=True, text=True, timeout=60,
                          stdin=stdin, start_new_session=True)


def hook_commands(entries: list) -> list[str]:
    return [h["command"] for e in entries for h in e.get("hooks", [e])]


def headers_from_helper(home: Path, command: str) -> dict:
    """Runs a headersHelper command the way Claude Code does (a shell command whose standard
    output is a JSON object of headers)."""
    done = subprocess.run(["sh", "-c", command], env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# The files that hold the key (Claude Code's settings do not: its header comes from the helper).
KEY_FILES = [".config/relaydeck/api-key", ".codex/.env", ".cursor/mcp.json", ".gemini/settings.json"]


def check_configs(home: Path, mcp_url: str, secret: str) -> None:
    auth = f"Bearer {secret}"
    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 7 and claude["mcpServers"]["other"]["command"] == "other-mcp"
    ours = claude["mcpServers"]["relaydeck"]
    assert set(ours) == {"type", "url", "headersHelper"} and ours["type"] == "http" and ours["url"] == mcp_url
    assert headers_from_helper(home, ours["headersHelper"]) == {"Authorization": auth}
    assert secret not in (home / ".claude.json").read_text()
    assert secret not in (home / ".claude" / "settings.json").read_text()
    for name in KEY_FILES:
        assert stat.S_IMODE((home / name).stat().st_mode) == 0o600, name
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and settings["hooks"]["PreToolUse"] == [OTHER_CLAUDE_HOOK]
    hook = str(home / ".config/relaydeck/inbox-hook")
    assert settings["hooks"]["Stop"][0] == OTHER_CLAUDE_HOOK
    for event, arg in [("SessionStart", "start"), ("UserPromptSubmit", "prompt"), ("Stop", "stop")]:
        ours = [shlex.split(c) for c in hook_commands(settings["hooks"][event]) if "relaydeck/inbox-hook" in c]
        assert ours == [[hook, "claude", arg]], (event, settings["hooks"][event])

    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert codex["model"] == "gpt-5" and codex["profiles"] == {"fast": {"model": "mini"}}
    assert codex["mcp_servers"]["other"] == {"command": "other-mcp", "args": ["--x"]}
    assert codex["mcp_servers"]["relaydeck"] == {"url": mcp_url, "bearer_token_env_var": "RELAYDECK_API_KEY"}
    # Codex runs ~/.codex/hooks.json only with this feature on.
    assert codex["features"] == {"codex_hooks": True}
    codex_hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    for event, arg in [("SessionStart", "start"), ("UserPromptSubmit", "prompt"), ("Stop", "stop")]:
        # No matcher: Codex reads it as a regular expression (a "*" would not be one).
        assert all("matcher" not in e for e in codex_hooks[event])
        assert [shlex.split(c) for c in hook_commands(codex_hooks[event])] == [[hook, "codex", arg]]
    assert secret not in (home / ".codex" / "config.toml").read_text()
    # Codex loads ~/.codex/.env when it starts: the variable the entry names is set there.
    codex_env = (home / ".codex" / ".env").read_text().splitlines()
    assert "OTHER_TOKEN=1" in codex_env and [l for l in codex_env if "RELAYDECK" in l] == [f"RELAYDECK_API_KEY={secret}"]

    cursor = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"] == {"other": {"url": "https://other/mcp"},
                                    "relaydeck": {"url": mcp_url, "headers": {"Authorization": auth}}}
    cursor_hooks = json.loads((home / ".cursor" / "hooks.json").read_text())
    assert cursor_hooks["version"] == 1 and set(cursor_hooks["hooks"]) == {"sessionStart", "stop"}
    for event, arg in [("sessionStart", "start"), ("stop", "stop")]:
        assert [shlex.split(c) for c in hook_commands(cursor_hooks["hooks"][event])] == [[hook, "cursor", arg]]

    gemini = json.loads((home / ".gemini" / "settings.json").read_text())
    assert gemini["theme"] == "Dracula"
    # Gemini CLI runs no hook while hooksConfig.enabled is false (its default in some versions).
    assert gemini["hooksConfig"] == {"enabled": True}
    assert gemini["mcpServers"] == {"relaydeck": {"httpUrl": mcp_url, "headers": {"Authorization": auth}}}
    for event, arg in [("SessionStart", "start"), ("BeforeAgent", "prompt"), ("AfterAgent", "stop")]:
        # No matcher: optional, and Gemini CLI compares it exactly for these events ("*" is no event).
        assert all("matcher" not in e for e in gemini["hooks"][event])
        assert [shlex.split(c) for c in hook_commands(gemini["hooks"][event])] == [[hook, "gemini", arg]]

    key_file = home / ".config/relaydeck/api-key"
    assert key_file.read_text() == secret + "\n"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


@pytest.fixture
def install_script(server, tmp_path):
    # site/install.sh as /install serves it (test_install_is_the_script_with_this_servers_address
    # checks the binary's copy is the same), so that editing the script needs no rebuild to test.
    script = tmp_path / "install.sh"
    source = (PACKAGE_ROOT / "site/install.sh").read_text()
    script.write_text(source.replace("@PUBLIC_URL@", f"http://127.0.0.1:{server.port}"))
    return script


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("with_claude_program", [True, False], ids=["claude-cli", "claude-json"])
def test_install_configures_every_agent_and_a_second_run_changes_nothing(py, server, tmp_path, install_script,
                                                                          with_claude_program, shell):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Installer")
    home, bin_dir = fake_home(tmp_path, with_claude_program)
    mcp_url = f"http://127.0.0.1:{server.port}/mcp"

    first = run_install(install_script, home, bin_dir, "--key", secret, shell=shell)
    assert first.returncode == 0, first.stderr
    assert "Configured for Claude Code Codex Cursor Gemini CLI" in first.stdout
    # The files that were 0644 before and now hold the key are tightened, and the user is told.
    for name in [".codex/.env", ".cursor/mcp.json", ".gemini/settings.json"]:
        assert f"Made {home / name} readable by you only (mode 0600)" in first.stdout, first.stdout
    assert secret not in first.stdout + first.stderr
    check_configs(home, mcp_url, secret)
    files = {p: p.read_bytes() for p in home.rglob("*") if p.is_file() and p.name != "claude-calls.log"}

    second = run_install(install_script, home, bin_dir, key_env=secret, shell=shell)
    assert second.returncode == 0, second.stderr
    assert "readable by you only" not in second.stdout
    check_configs(home, mcp_url, secret)
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file() and p.name != "claude-calls.log"} == files
    if with_claude_program:
        # claude's command line, which every user sees in the process list, never has the key.
        log = (home / "claude-calls.log").read_text()
        calls = [json.loads(l) for l in log.splitlines()]
        assert calls[1][:2] == ["mcp", "add-json"] and "relaydeck" in calls[1], calls
        assert secret not in log
    assert not list(home.rglob("*.relaydeck-tmp"))
    argv_log = (tmp_path / "curl-argv.log").read_text()
    assert "/v1/agents" in argv_log and secret not in argv_log
    editor_log = (tmp_path / "editor-argv.log").read_text()
    assert "mcpServers.relaydeck" in editor_log and secret not in editor_log


def command_lines_during(argv: list[str], env: dict) -> tuple[int, list[str]]:
    """Runs ARGV in a session of its own and reads the command line of each of its processes
    (/proc/PID/cmdline, which every user of the machine can read, as ps does) until it ends."""
    run = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    seen = set()
    while run.poll() is None:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if int(fields[3]) != run.pid:    # the session
                    continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    seen.add(f.read().replace(b"\0", b" ").decode(errors="replace"))
            except (OSError, IndexError, ValueError):
                pass    # gone meanwhile
    return run.returncode, sorted(seen)


@pytest.mark.parametrize("shell", ["dash", "macos-sh"])
def test_no_process_of_the_run_has_the_key_on_its_command_line(py, tmp_path, install_script, shell):
    """`ps` during the whole run, with the key given in the environment: not one process (the
    shell, curl, python3, claude, the tools) has it in its command line. Sampling sees every
    process that lives more than a few milliseconds (and a 1 ms one most times); the stand-ins'
    own logs of their arguments (curl, python3, node, claude) cover the shortest."""
    _, token = create_account(py)
    _, secret = create_key(py, token, "Unseen")
    home, bin_dir = fake_home(tmp_path, with_claude_program=True)
    argv, env = shell_command(shell, bin_dir, "/usr/local/bin:/usr/bin:/bin")
    env |= {"HOME": str(home), "RELAYDECK_API_KEY": secret}
    status, seen = command_lines_during([*argv, str(install_script)], env)
    assert status == 0
    # It did see the run's processes: the editors, claude and the tools.
    assert any("mcpServers.relaydeck" in c for c in seen) and any("add-json" in c for c in seen), seen
    assert [c for c in seen if secret in c] == []


def test_a_key_given_with_key_is_said_to_be_on_the_command_line(py, tmp_path, install_script):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Seen")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    argv, env = shell_command("dash", bin_dir, "/usr/local/bin:/usr/bin:/bin")
    status, seen = command_lines_during([*argv, str(install_script), "--key", secret], env | {"HOME": str(home)})
    assert status == 0
    # Only the shell's own command line, which the script cannot change: so it says so.
    assert [c for c in seen if secret in c] == [f"{argv[0]} {install_script} --key {secret} "]
    done = run_install(install_script, home, bin_dir, "--key", secret)
    assert "--key put the key on this command line, where every user of the machine can read it" in done.stderr
    assert secret not in done.stderr
    assert "--key" not in run_install(install_script, home, bin_dir, key_env=secret).stderr


def test_install_refuses_a_wrong_key_and_writes_nothing(py, tmp_path, install_script):
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    unknown = run_install(install_script, home, bin_dir, "--key", "mck_" + "A" * 43)
    assert unknown.returncode == 1
    assert "relaydeck: the server does not know this API key" in unknown.stderr
    token = run_install(install_script, home, bin_dir, key_env="mca_" + "A" * 43)
    assert token.returncode == 1 and "starts with mck_" in token.stderr
    missing = run_install(install_script, home, bin_dir)
    assert missing.returncode == 1 and "no API key" in missing.stderr
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("shell", SHELLS)
def test_install_leaves_a_broken_json_file_alone(py, tmp_path, install_script, shell):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Broken")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    (home / ".cursor" / "mcp.json").write_text("{not json")
    done = run_install(install_script, home, bin_dir, "--key", secret, shell=shell)
    assert done.returncode == 1
    assert "is not valid JSON" in done.stderr and "could not configure Cursor" in done.stderr
    assert (home / ".cursor" / "mcp.json").read_text() == "{not json"
    # Nothing else of Cursor either: hooks without the server would be read by no MCP client.
    assert sorted(p.name for p in (home / ".cursor").iterdir()) == ["mcp.json"]
    # The other agents are configured all the same.
    assert "relaydeck" in tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]


@pytest.mark.parametrize("with_claude_program", [True, False], ids=["claude-cli", "claude-json"])
@pytest.mark.parametrize("broken", [".claude/settings.json", ".claude.json", ".cursor/hooks.json"])
def test_a_broken_file_of_an_agent_means_nothing_of_that_agent_is_written(py, tmp_path, install_script, broken,
                                                                           with_claude_program):
    """A server without its hooks, or hooks without the server, is half a set-up: each of an
    agent's files is read before the first of them changes."""
    _, token = create_account(py)
    _, secret = create_key(py, token, "Half")
    home, bin_dir = fake_home(tmp_path, with_claude_program)
    (home / broken).write_text('{"hooks": ')
    agent_files = [".claude.json", ".claude/settings.json"] if broken.startswith(".claude") else \
        [".cursor/mcp.json", ".cursor/hooks.json"]
    before = {name: (home / name).read_bytes() if (home / name).exists() else None for name in agent_files}
    done = run_install(install_script, home, bin_dir, "--key", secret)
    agent = "Claude Code" if broken.startswith(".claude") else "Cursor"
    assert done.returncode == 1 and f"could not configure {agent} (see above)" in done.stderr, done.stderr
    assert f"{home / broken} is not valid JSON" in done.stderr and secret not in done.stderr + done.stdout
    assert {name: (home / name).read_bytes() if (home / name).exists() else None for name in agent_files} == before
    if with_claude_program and agent == "Claude Code":
        assert not (home / "claude-calls.log").exists()    # claude mcp add-json never ran
    # The other agents are configured all the same.
    assert "relaydeck" in json.loads((home / ".gemini" / "settings.json").read_text())["mcpServers"]


def test_the_inbox_hook_hands_each_item_to_the_agent_once(py, tmp_path, install_script):
    _, token = create_account(py)
    key, secret = create_key(py, token, "Hooked")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    assert run_install(install_script, home, bin_dir, "--key", secret).returncode == 0
    hook = home / ".config/relaydeck/inbox-hook"
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"}

    def run_hook(agent, event):
        done = subprocess.run(["dash", str(hook), agent, event], env=env, input="{}", capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run_hook("claude", "stop") == ""
    assert py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": 'Stop "now" \\ rebase'}).status == 201
    out = json.loads(run_hook("claude", "stop"))
    assert out["decision"] == "block" and 'Stop \\"now\\" \\\\ rebase' in out["reason"]
    # Read now: the same item does not continue the agent a second time.
    assert run_hook("claude", "stop") == ""
    py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": "Second"})
    assert "Second" in json.loads(run_hook("cursor", "start"))["additional_context"]
    py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": "Third"})
    out = json.loads(run_hook("gemini", "prompt"))
    assert out["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    assert "Third" in out["hookSpecificOutput"]["additionalContext"]
    py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": "For Codex"})
    out = json.loads(run_hook("codex", "prompt"))
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "For Codex" in out["hookSpecificOutput"]["additionalContext"]
    py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": "Codex, go on"})
    out = json.loads(run_hook("codex", "stop"))
    assert out["decision"] == "block" and "Codex, go on" in out["reason"]
    argv_log = (tmp_path / "curl-argv.log").read_text()
    assert "/v1/inbox" in argv_log and secret not in argv_log


def test_install_asks_for_the_key_on_the_terminal_when_piped_into_sh(py, server, tmp_path):
    """`curl .../install | sh`: the script is on standard input, so the question goes to the
    terminal, and the answer is not echoed."""
    import pty
    import select
    _, token = create_account(py)
    _, secret = create_key(py, token, "Typed")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    script = py.call("GET", "/install").body
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    pid, terminal = pty.fork()
    if pid == 0:
        # The child: its controlling terminal is the pty; the script comes on a pipe.
        read_end, write_end = os.pipe()
        os.write(write_end, script)
        os.close(write_end)
        os.dup2(read_end, 0)
        os.execve("/bin/dash", ["dash"], env)
    seen = b""
    sent = False
    status = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(terminal, 4096)
            except OSError:
                chunk = b""
            seen += chunk
            if not chunk:
                break
        if not sent and b"starts with mck_): " in seen:
            os.write(terminal, secret.encode() + b"\n")
            sent = True
        done_pid, status = os.waitpid(pid, os.WNOHANG)
        if done_pid:
            break
    else:
        os.kill(pid, 9)
        raise AssertionError(f"the script did not finish: {seen!r}")
    if status is None or not os.WIFEXITED(status):
        _, status = os.waitpid(pid, 0)
    os.close(terminal)
    text = seen.decode(errors="replace")
    assert sent, text
    assert os.WEXITSTATUS(status) == 0, text
    assert secret not in text, "the key was echoed"
    assert (home / ".config/relaydeck/api-key").read_text() == secret + "\n"
    assert "Configured for" in text


@pytest.mark.parametrize("shell", SHELLS)
def test_every_written_command_runs_from_a_home_with_a_space_and_a_quote(py, server, tmp_path, install_script, shell):
    """The agents run hook commands (and Claude Code its headersHelper) with a shell: a home such
    as /home/first last broke every one of them (`sh: 1: /home/first: not found`)."""
    _, token = create_account(py)
    key, secret = create_key(py, token, "Quoted")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False, home_name="Jo's \"first\" Zoë last")
    done = run_install(install_script, home, bin_dir, "--key", secret, shell=shell)
    assert done.returncode == 0, done.stderr
    check_configs(home, f"http://127.0.0.1:{server.port}/mcp", secret)
    claude = json.loads((home / ".claude.json").read_text())["mcpServers"]["relaydeck"]
    commands = [c for c in hook_commands(sum(json.loads((home / ".claude/settings.json").read_text())["hooks"].values(), []))
                if "relaydeck" in c]
    commands += hook_commands(sum(json.loads((home / ".cursor/hooks.json").read_text())["hooks"].values(), []))
    commands += hook_commands(sum(json.loads((home / ".gemini/settings.json").read_text())["hooks"].values(), []))
    commands += hook_commands(sum(json.loads((home / ".codex/hooks.json").read_text())["hooks"].values(), []))
    assert len(commands) == 11, commands
    for runner in SHELLS:
        argv, env = shell_command(runner, bin_dir, "/usr/bin:/bin")
        env["HOME"] = str(home)
        # The commands as the agents run them (sh -c); with macOS's sh, also the programs
        # themselves run by it (their #!/bin/sh is dash here).
        ways = [[*argv, "-c", claude["headersHelper"]]]
        if runner == "macos-sh":
            ways.append([*argv, *shlex.split(claude["headersHelper"])])
        for way in ways:
            helper = subprocess.run(way, env=env, capture_output=True, text=True, timeout=10)
            assert helper.returncode == 0 and json.loads(helper.stdout) == {"Authorization": f"Bearer {secret}"}, helper
        for number, command in enumerate(commands):
            ways = [[*argv, "-c", command]]
            if runner == "macos-sh":
                ways.append([*argv, *shlex.split(command)])
            for way in ways:
                # An unread message, so that each hook has something to hand over: its output shows it ran.
                text = f"Marker {runner} {number} {len(way)}"
                assert py.call("POST", "/v1/messages", token=token,
                               json={"key_id": key["id"], "text": text}).status == 201
                ran = subprocess.run(way, env=env, input="{}", capture_output=True, text=True, timeout=30)
                assert ran.returncode == 0, (way, ran.stderr)
                assert ran.stderr == "" and text in ran.stdout, (way, ran.stdout)


def codex_case(py, tmp_path, install_script, config: str, shell: str = "dash"):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Codex")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    (home / ".codex" / "config.toml").write_text(config)
    return home, secret, run_install(install_script, home, bin_dir, "--key", secret, shell=shell)


@pytest.mark.parametrize("shell", SHELLS)
def test_codex_entry_given_as_an_inline_table_is_replaced_not_doubled(py, server, tmp_path, install_script, shell):
    config = ('model = "gpt-5"\n\n[mcp_servers]\nother = { command = "other-mcp" }\n'
              'relaydeck = { url = "http://old/mcp", http_headers = { Authorization = "Bearer mck_old" } }\n\n'
              '[profiles.fast]\nmodel = "mini"\n')
    home, secret, done = codex_case(py, tmp_path, install_script, config, shell)
    assert done.returncode == 0, done.stderr
    written = (home / ".codex" / "config.toml").read_text()
    codex = tomllib.loads(written)
    assert codex == {"model": "gpt-5", "profiles": {"fast": {"model": "mini"}}, "features": {"codex_hooks": True},
                     "mcp_servers": {"other": {"command": "other-mcp"},
                                     "relaydeck": {"url": f"http://127.0.0.1:{server.port}/mcp",
                                                   "bearer_token_env_var": "RELAYDECK_API_KEY"}}}
    assert "mck_old" not in written and secret not in written
    assert "RELAYDECK_API_KEY" in done.stdout and ".codex/.env" in done.stdout


@pytest.mark.parametrize("config", [
    'model = "gpt-5"\nmcp_servers = { other = { command = "other-mcp" } }\n',   # a table cannot be added
    '[mcp_servers.other\ncommand = "x"\n',                                       # not TOML
], ids=["inline-mcp-servers", "malformed"])
def test_codex_config_that_cannot_be_edited_safely_is_left_alone(py, tmp_path, install_script, config):
    home, secret, done = codex_case(py, tmp_path, install_script, config)
    assert done.returncode == 1 and "could not configure Codex" in done.stderr, done.stderr
    assert "left unchanged" in done.stderr and secret not in done.stderr + done.stdout
    # Nothing of Codex is written: the file as it was, and no key in its .env.
    assert (home / ".codex" / "config.toml").read_text() == config
    assert (home / ".codex" / ".env").read_text() == "OTHER_TOKEN=1\n"
    assert not list(home.rglob("*.relaydeck-tmp"))
    # The other agents are configured all the same.
    assert "relaydeck" in json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]


def without_python(tmp_path: Path) -> str:
    """A PATH with the programs of /usr/bin and /bin but python3: the script edits JSON with node."""
    folder = tmp_path / "no-python"
    folder.mkdir()
    for source in [Path("/usr/bin"), Path("/bin")]:
        for program in source.iterdir():
            if not program.name.startswith("python") and not (folder / program.name).exists():
                (folder / program.name).symlink_to(program)
    return str(folder)


def test_a_python3_that_only_asks_for_the_developer_tools_leaves_the_json_edits_to_node(py, server, tmp_path,
                                                                                       install_script):
    """On a Mac without the developer tools, /usr/bin/python3 exists but is a stub that asks to
    install them and fails: the script must not take it for an editor when node is there."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    _, token = create_account(py)
    _, secret = create_key(py, token, "Mac")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    stub = bin_dir / "python3"
    stub.write_text("#!/bin/sh\necho 'xcode-select: note: No developer tools were found, requesting install.' >&2\n"
                    "exit 1\n")
    stub.chmod(0o755)
    done = run_install(install_script, home, bin_dir, "--key", secret, shell="macos-sh")
    # config.toml exists, and nothing without tomllib may edit it: Codex alone is refused.
    assert done.returncode == 1 and "could not configure Codex (see above)" in done.stderr, done.stderr
    assert "Configured for Claude Code Cursor Gemini CLI" in done.stdout, done.stdout
    mcp_url = f"http://127.0.0.1:{server.port}/mcp"
    assert json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["relaydeck"]["url"] == mcp_url
    assert json5.loads((home / ".gemini" / "settings.json").read_text())["hooksConfig"] == {"enabled": True}
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["relaydeck"]["url"] == mcp_url
    assert (home / ".codex" / "config.toml").read_text().startswith('model = "gpt-5"') and \
        "relaydeck" not in (home / ".codex" / "config.toml").read_text()


@pytest.mark.parametrize("editor", ["python3", "node"])
def test_gemini_settings_with_comments_are_read_as_gemini_cli_reads_them(py, server, tmp_path, install_script, editor):
    if editor == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    _, token = create_account(py)
    _, secret = create_key(py, token, "Gemini")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    settings = home / ".gemini" / "settings.json"
    original = ('{\n  // my theme\n  "theme": "Dracula", /* a block\n comment */\n'
                '  "docs": "https://example.com/a//b /* not a comment */",\n  "mcpServers": {}\n}\n')
    settings.write_text(original)
    assert json5.loads(original)["theme"] == "Dracula"    # valid JSONC, as Gemini CLI accepts it
    if editor == "python3":
        done = run_install(install_script, home, bin_dir, "--key", secret)
        assert done.returncode == 0, done.stderr
    else:
        (bin_dir / "python3").unlink()
        done = run_install(install_script, home, bin_dir, "--key", secret, path=without_python(tmp_path))
        assert "mcpServers.relaydeck" in (tmp_path / "editor-argv.log").read_text()    # node's
        assert secret not in (tmp_path / "editor-argv.log").read_text()
        # Without python3 (tomllib) the existing config.toml is not edited; Gemini CLI is.
        assert done.returncode == 1 and "could not configure Codex" in done.stderr, done.stderr
        assert "Gemini CLI" in done.stdout
    written = json5.loads(settings.read_text())
    assert written["theme"] == "Dracula" and written["docs"] == "https://example.com/a//b /* not a comment */"
    assert written["mcpServers"] == {"relaydeck": {"httpUrl": f"http://127.0.0.1:{server.port}/mcp",
                                                   "headers": {"Authorization": f"Bearer {secret}"}}}
    assert set(written["hooks"]) == {"SessionStart", "BeforeAgent", "AfterAgent"}
    # The comments cannot be kept in the rewritten file: the file as it was stays beside it, private.
    kept = home / ".gemini" / "settings.json.before-relaydeck"
    assert kept.read_text() == original and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert f"The comments of {settings} are not kept" in done.stdout
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600


@pytest.mark.parametrize("editor", ["python3", "node"])
@pytest.mark.parametrize("before, installed", [
    (None, {"enabled": True}),                                       # turned on, and off again by --uninstall
    ({"disabled": ["mine"]}, {"disabled": ["mine"], "enabled": True}),  # added to the user's table
    ({"enabled": False}, {"enabled": False}),                          # the user's choice stays
], ids=["absent", "other-members", "user-false"])
def test_gemini_hooks_are_enabled_unless_the_user_chose_otherwise_and_uninstall_takes_back_only_that(
        py, tmp_path, install_script, editor, before, installed):
    """Gemini CLI runs the hooks of settings.json only while hooksConfig.enabled is true (its
    docs/reference/configuration.md: "the canonical toggle for the hooks system"); a version
    whose default is false would never run them, silently."""
    if editor == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    _, token = create_account(py)
    _, secret = create_key(py, token, "Gemini hooks")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    settings = home / ".gemini" / "settings.json"
    original = {"theme": "Dracula"} | ({} if before is None else {"hooksConfig": before})
    settings.write_text("// mine\n" + json.dumps(original, indent=2) + "\n")
    path = "/usr/local/bin:/usr/bin:/bin"
    if editor == "node":
        (bin_dir / "python3").unlink()
        path = without_python(tmp_path)
    done = run_install(install_script, home, bin_dir, "--key", secret, path=path)
    assert "Gemini CLI" in done.stdout, done.stderr
    written = json5.loads(settings.read_text())
    assert written["hooksConfig"] == installed
    assert set(written["hooks"]) == {"SessionStart", "BeforeAgent", "AfterAgent"}
    assert (f"hooksConfig.enabled is false in {settings}; left as you set it" in done.stdout) == (
        before == {"enabled": False}), done.stdout
    # Changed since by the user: --uninstall cannot give the file back as it was, and takes out
    # only what the install added.
    written["model"] = {"name": "gemini-2.5-pro"}
    settings.write_text(json.dumps(written))
    undone = run_install(install_script, home, tmp_path / "bin", "--uninstall")
    assert undone.returncode == 0, undone.stderr
    left = json5.loads(settings.read_text())
    assert left == original | {"model": {"name": "gemini-2.5-pro"}}


def test_a_hook_gives_up_after_2_s_when_the_server_never_answers(py, tmp_path, install_script):
    """A server that accepts the connection and never answers used to add 10 s to every prompt."""
    _, token = create_account(py)
    _, secret = create_key(py, token, "Silent")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    assert run_install(install_script, home, bin_dir, "--key", secret).returncode == 0
    hook = home / ".config/relaydeck/inbox-hook"
    with socket.socket() as silent:
        # Connections complete in the listen queue; nothing ever reads them or answers.
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        text = hook.read_text()
        hook.write_text(re.sub(r"^SERVER='[^']*'$", f"SERVER='http://127.0.0.1:{port}'", text, count=1, flags=re.M))
        env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"}
        for agent, event in [("claude", "start"), ("claude", "prompt"), ("gemini", "stop"), ("cursor", "stop")]:
            started = time.monotonic()
            done = subprocess.run(["dash", str(hook), agent, event], env=env, input="{}", capture_output=True,
                                  text=True, timeout=30)
            took = time.monotonic() - started
            # Silent and successful: a hook never stops the agent. 2 s, with room for a loaded machine.
            assert done.returncode == 0 and done.stdout == "", done
            assert took < 6, f"{agent} {event} took {took:.1f} s"


def agent_entries(home: Path) -> dict[str, tuple[str, dict]]:
    """Each agent's MCP entry read the way that agent reads it: (url, headers)."""
    claude = json.loads((home / ".claude.json").read_text())["mcpServers"]["relaydeck"]
    assert claude["type"] == "http"
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]["relaydeck"]
    # Codex loads ~/.codex/.env (KEY=VALUE lines) into its environment when it starts.
    codex_env = dict(l.split("=", 1) for l in (home / ".codex" / ".env").read_text().splitlines() if "=" in l)
    cursor = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["relaydeck"]
    gemini = json5.loads((home / ".gemini" / "settings.json").read_text())["mcpServers"]["relaydeck"]
    return {
        "Claude Code": (claude["url"], headers_from_helper(home, claude["headersHelper"])),
        "Codex": (codex["url"], {"Authorization": f"Bearer {codex_env[codex['bearer_token_env_var']]}"}),
        "Cursor": (cursor["url"], cursor["headers"]),
        "Gemini CLI": (gemini["httpUrl"], gemini["headers"]),
    }


@pytest.mark.parametrize("with_claude_program", [True, False], ids=["claude-cli", "claude-json"])
def test_the_official_sdk_connects_with_each_agents_written_settings(py, tmp_path, install_script, with_claude_program):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.types import Implementation
    from test_mcp_sdk import TOOLS

    _, token = create_account(py)
    _, secret = create_key(py, token, "Connected")
    home, bin_dir = fake_home(tmp_path, with_claude_program)
    done = run_install(install_script, home, bin_dir, "--key", secret)
    assert done.returncode == 0, done.stderr

    async def tools(url: str, headers: dict) -> list[str]:
        http = create_mcp_http_client(headers=headers)
        async with Client(streamable_http_client(url, http_client=http), mode="auto",
                          client_info=Implementation(name="install-test", version="1.0")) as client:
            return [t.name for t in (await client.list_tools()).tools]

    import asyncio
    for agent, (url, headers) in agent_entries(home).items():
        assert asyncio.run(asyncio.wait_for(tools(url, headers), timeout=20)) == TOOLS, agent


# What starts a command line in the examples: none of these lines may hold a key.
COMMANDS = ("curl", "claude", "mkdir", "cat", "chmod", "printf", "sh", "export", "codex", "gemini", "cursor")


def command_lines(blocks: list[str]) -> list[str]:
    return [l.strip() for b in blocks for l in b.splitlines() if l.strip().split(" ")[0] in COMMANDS]


def run_claude_recipe(recipe: str, tmp_path: Path, secret: str) -> dict:
    """Runs the by-hand Claude Code commands in a fresh home, the key pasted on standard input,
    with a stand-in claude; gives the entry it added, after running its headersHelper the way
    Claude Code does."""
    home, bin_dir = tmp_path / "recipe-home", tmp_path / "recipe-bin"
    home.mkdir()
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(CLAUDE_STANDIN)
    (bin_dir / "claude").chmod(0o755)
    done = subprocess.run(["sh", "-e", "-c", recipe], input=secret + "\n", capture_output=True, text=True, timeout=30,
                          env={"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((home / ".config/relaydeck/api-key").stat().st_mode) == 0o600
    assert secret not in (home / "claude-calls.log").read_text()
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["relaydeck"]
    assert headers_from_helper(home, entry["headersHelper"]) == {"Authorization": f"Bearer {secret}"}
    return entry


def test_the_agents_page_shows_per_agent_what_the_script_writes_and_how_by_hand(py, server, tmp_path):
    import html as html_text
    page = py.call("GET", "/docs/agents").text
    mcp = f"http://127.0.0.1:{server.port}/mcp"
    sections = dict(re.findall(r"<h2>([^<]+)</h2>(.*?)(?=<h2>|$)", page, flags=re.S))
    for agent, written in {
        "Claude Code": ["claude mcp add-json --scope user", "~/.claude.json", "headersHelper", "~/.claude/settings.json",
                        "UserPromptSubmit", "inbox-hook' claude start"],
        "Codex": ["~/.codex/config.toml", 'bearer_token_env_var = "RELAYDECK_API_KEY"', "codex_hooks = true",
                  "~/.codex/.env", "RELAYDECK_API_KEY=mck_...", "~/.codex/hooks.json", "inbox-hook' codex start"],
        "Cursor": ["~/.cursor/mcp.json", "~/.cursor/hooks.json", "sessionStart", "inbox-hook' cursor start"],
        "Gemini CLI": ["~/.gemini/settings.json", '"httpUrl"', "BeforeAgent", "AfterAgent", '"hooksConfig": {"enabled": true}',
                       "inbox-hook' gemini start"],
    }.items():
        text = html_text.unescape(sections[agent])
        for item in written:
            assert item in text, (agent, item)
        assert "By hand" in text and "chmod" in text, agent
    blocks = [html_text.unescape(b) for b in re.findall(r"<pre>(.*?)</pre>", page, flags=re.S)]
    assert f"curl -fsSL http://127.0.0.1:{server.port}/install | sh" in blocks
    # No example puts the key on a command line.
    assert "--header" not in page and "--key" not in page
    lines = command_lines(blocks)
    assert len(lines) >= 6 and all("mck_" not in l for l in lines), lines
    for path in ["/", "/docs/agents"]:
        # The commands in running text too (the home page's one-liner without questions).
        codes = [html_text.unescape(c) for c in re.findall(r"<code>(.*?)</code>", py.call("GET", path).text, flags=re.S)]
        assert [l for l in command_lines(codes) if "mck_" in l] == [], path
    # The by-hand Claude Code commands work as they stand.
    _, token = create_account(py)
    _, secret = create_key(py, token, "By hand")
    recipe = next(b for b in blocks if "claude mcp add-json" in b)
    assert run_claude_recipe(recipe, tmp_path, secret)["url"] == mcp


def test_the_readme_sets_agents_up_without_the_key_on_a_command_line(tmp_path):
    readme = (PACKAGE_ROOT / "README.md").read_text()
    # Its two passages on setting agents up (the REST examples after the tools are not).
    agents = readme[readme.index("## Agents over MCP"):]
    agents = agents[:agents.index("\n| Tool |")]
    website = readme[readme.index("### The website"):]
    website = website[:re.search(r"\n##+ ", website[4:]).start() + 4]
    blocks = re.findall(r"```(?:sh|toml|json)\n(.*?)```", agents + website, flags=re.S)
    lines = command_lines(blocks)
    assert "--header" not in agents + website
    assert "https://relaydeck.example.com/install | sh" in website
    assert any(l.startswith("claude mcp add-json") for l in lines)
    assert all("mck_" not in l and "YOUR_API_KEY" not in l for l in lines), [l for l in lines if "mck_" in l]
    recipe = next(b for b in blocks if "claude mcp add-json" in b)
    assert run_claude_recipe(recipe, tmp_path, "mck_" + "R" * 43)["url"] == "https://relaydeck.example.com/mcp"


def snapshot(home: Path) -> dict:
    """Every file's bytes and mode and every folder under home (the stand-in's log left out)."""
    return {str(p.relative_to(home)): (p.read_bytes() if p.is_file() else None, stat.S_IMODE(p.stat().st_mode))
            for p in home.rglob("*") if p.name != "claude-calls.log"}


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("with_claude_program", [True, False], ids=["claude-cli", "claude-json"])
def test_uninstall_gives_back_the_home_as_it_was_byte_for_byte(py, tmp_path, install_script, with_claude_program,
                                                                shell):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Undone")
    home, bin_dir = fake_home(tmp_path, with_claude_program)
    (home / ".gemini" / "settings.json").write_text('{\n  // mine\n  "theme": "Dracula"\n}\n')
    before = snapshot(home)
    for _ in range(2):    # a re-run does not lose what was there before the first
        done = run_install(install_script, home, bin_dir, "--key", secret, shell=shell)
        assert done.returncode == 0, done.stderr
    assert snapshot(home) != before
    undone = run_install(install_script, home, bin_dir, "--uninstall", shell=shell)
    assert undone.returncode == 0, undone.stderr
    assert "Removed the Relaydeck MCP server" in undone.stdout
    assert snapshot(home) == before


def test_uninstall_of_an_empty_home_leaves_it_empty(py, tmp_path, install_script):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Empty")
    home = tmp_path / "home"
    bin_dir = tmp_path / "bin"
    home.mkdir()
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text(CLAUDE_STANDIN)
    claude.chmod(0o755)
    assert run_install(install_script, home, bin_dir, "--key", secret).returncode == 0
    assert (home / ".claude" / "settings.json").exists() and (home / ".config" / "relaydeck" / "api-key").exists()
    assert run_install(install_script, home, bin_dir, "--uninstall").returncode == 0
    assert [p.name for p in home.iterdir()] == ["claude-calls.log"]


def test_uninstall_keeps_what_was_changed_since_and_removes_only_its_own(py, tmp_path, install_script):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Kept")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    assert run_install(install_script, home, bin_dir, "--key", secret).returncode == 0
    cursor = json.loads((home / ".cursor" / "mcp.json").read_text())
    cursor["mcpServers"]["added-later"] = {"url": "https://later/mcp"}
    (home / ".cursor" / "mcp.json").write_text(json.dumps(cursor))
    with (home / ".codex" / "config.toml").open("a") as f:
        f.write('\n[mcp_servers.later]\ncommand = "later"\n')
    assert run_install(install_script, home, bin_dir, "--uninstall").returncode == 0
    assert json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"] == {
        "other": {"url": "https://other/mcp"}, "added-later": {"url": "https://later/mcp"}}
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert set(codex["mcp_servers"]) == {"other", "later"}
    for path in home.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    assert not (home / ".config" / "relaydeck").exists()


def test_claude_hooks_run_by_cursor_leave_the_inbox_to_cursors_own(py, tmp_path, install_script):
    """Cursor runs ~/.claude/settings.json's hooks too ("third-party hooks"): without care the
    Claude entry would read the items first and Cursor's own hook would find none."""
    _, token = create_account(py)
    key, secret = create_key(py, token, "Both")
    home, bin_dir = fake_home(tmp_path, with_claude_program=False)
    assert run_install(install_script, home, bin_dir, "--key", secret).returncode == 0
    hook = str(home / ".config/relaydeck/inbox-hook")
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"}

    def run(agent, event, stdin, extra=None):
        done = subprocess.run(["dash", hook, agent, event], env={**env, **(extra or {})}, input=stdin,
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": "Only once"}).status == 201
    cursor_input = json.dumps({"hook_event_name": "stop", "cursor_version": "2.1.0", "workspace_roots": ["/w"]})
    assert run("claude", "stop", cursor_input) == ""
    assert run("claude", "prompt", "{}", {"CURSOR_VERSION": "2.1.0"}) == ""
    assert "Only once" in json.loads(run("cursor", "stop", cursor_input))["followup_message"]
    # Claude Code itself still gets its items.
    py.call("POST", "/v1/messages", token=token, json={"key_id": key["id"], "text": "For Claude"})
    assert "For Claude" in json.loads(run("claude", "stop", json.dumps({"session_id": "s", "hook_event_name": "Stop"})))["reason"]


@pytest.mark.parametrize("features, expected", [
    ("[features]\nweb_search = true\n", {"web_search": True, "codex_hooks": True}),   # added to the table
    ("[features]\ncodex_hooks = false\n", {"codex_hooks": False}),                  # the user's choice stays
])
def test_codex_hooks_feature_is_turned_on_in_the_users_features_table(py, tmp_path, install_script, features,
                                                                       expected):
    config = 'model = "gpt-5"\n\n' + features + '\n[profiles.fast]\nmodel = "mini"\n'
    home, secret, done = codex_case(py, tmp_path, install_script, config)
    assert done.returncode == 0, done.stderr
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert codex["features"] == expected and codex["profiles"] == {"fast": {"model": "mini"}}
    assert ("Codex hooks are off" in done.stdout) == (expected["codex_hooks"] is False)
    second = run_install(install_script, home, tmp_path / "bin", "--key", secret)
    assert second.returncode == 0 and tomllib.loads((home / ".codex" / "config.toml").read_text()) == codex


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("with_claude_program", [True, False], ids=["claude-cli", "claude-json"])
def test_dry_run_shows_each_change_and_writes_nothing(py, server, tmp_path, install_script, with_claude_program,
                                                      shell):
    _, token = create_account(py)
    _, secret = create_key(py, token, "Dry")
    home, bin_dir = fake_home(tmp_path, with_claude_program)
    before = snapshot(home)
    done = run_install(install_script, home, bin_dir, "--dry-run", "--key", secret, shell=shell)
    assert done.returncode == 0, done.stderr
    assert snapshot(home) == before and not (home / "claude-calls.log").exists()
    out = done.stdout
    assert secret not in out + done.stderr and "mck_(the key)" in out
    # A diff per file, named by its real path; nothing names the scratch copies.
    for name in [".claude.json", ".claude/settings.json", ".codex/config.toml", ".codex/.env", ".codex/hooks.json",
                 ".cursor/mcp.json", ".cursor/hooks.json", ".gemini/settings.json", ".config/relaydeck/inbox-hook"]:
        assert f"+++ {home / name}" in out, (name, out)
    assert f'+url = "http://127.0.0.1:{server.port}/mcp"' in out
    assert str(home / ".config/relaydeck/mcp-headers") in out
    assert "/tmp/tmp." not in out + done.stderr
    assert "Dry run: nothing was written" in out
    assert f"Would make {home / '.cursor/mcp.json'} readable by you only (mode 0600)" in out
    # Then the real run does what the dry run showed.
    assert run_install(install_script, home, bin_dir, "--key", secret, shell=shell).returncode == 0
    check_configs(home, f"http://127.0.0.1:{server.port}/mcp", secret)
