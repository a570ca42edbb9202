"""The man page (packaging/debian/relaydeckd.1): every command, every setting the binary reads,
the files of an installed system, and no warning from groff or man."""

import re
import shutil
import subprocess

import pytest

from server_process import PACKAGE_ROOT, binary_path

MAN_PAGE = PACKAGE_ROOT / "packaging" / "debian" / "relaydeckd.1"
SOURCES = PACKAGE_ROOT / "Sources" / "relaydeckd"


def section(name: str) -> str:
    text = MAN_PAGE.read_text()
    match = re.search(rf"^\.SH {name}\n(.*?)(?=^\.SH )", text, re.MULTILINE | re.DOTALL)
    assert match, f"no {name} section"
    return match.group(1)


def items(text: str) -> set[str]:
    """The words in bold at the head of each .TP item (.B NAME, .BR NAME ", " NAME2)."""
    names = set()
    for head in re.findall(r"^\.TP\n(\.B[IR]? .*)$", text, re.MULTILINE):
        names.update(re.findall(r"\b[A-Z][A-Z0-9_]+\b", head.replace("\\-", "-")))
    return names


def settings_the_binary_reads() -> set[str]:
    """The variables the config loader reads (the first argument of each reader call, and the
    _FILE form of each secret) and those the daemon takes from systemd."""
    names, secrets = set(), set()
    for path in (SOURCES / "Config").glob("*.swift"):
        text = path.read_text()
        names.update(re.findall(r'\w+\(\s*\[?\s*"([A-Z][A-Z0-9_]+)"', text))
        secrets.update(re.findall(r'\bsecret\(\s*"([A-Z][A-Z0-9_]+)"', text))
    for path in SOURCES.rglob("*.swift"):
        names.update(re.findall(r'environment\["([A-Z][A-Z0-9_]+)"\]', path.read_text()))
    names.update(name + "_FILE" for name in secrets)
    return names


def test_the_scan_finds_the_settings():
    found = settings_the_binary_reads()
    # The scan itself must work: the settings everybody knows, a secret's _FILE form, systemd's.
    assert {"LISTEN", "DATABASE_PATH", "LOG_FORMAT", "APP_TOTP_SECRET_FILE", "APNS_PRIVATE_KEY_FILE",
            "NOTIFY_SOCKET", "JOURNAL_STREAM", "CREDENTIALS_DIRECTORY"} <= found, found
    assert len(found) >= 38, sorted(found)


def test_every_setting_the_binary_reads_is_in_the_environment_section():
    missing = settings_the_binary_reads() - items(section("ENVIRONMENT"))
    assert not missing, f"settings missing from ENVIRONMENT in {MAN_PAGE.name}: {sorted(missing)}"


def test_every_setting_of_the_readme_table_is_in_the_environment_section():
    readme = (PACKAGE_ROOT / "README.md").read_text()
    table = readme.split("| variable | meaning | default |\n", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| (`[A-Z][A-Z0-9_]+`.*?) \|", table, re.MULTILINE)
    documented = {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row)}
    assert "LOG_LEVEL" in documented and "SHUTDOWN_TIMEOUT" in documented, documented
    missing = documented - items(section("ENVIRONMENT"))
    assert not missing, sorted(missing)


def test_every_command_of_the_usage_is_in_the_commands_section():
    usage = subprocess.run([str(binary_path()), "--help"], capture_output=True, text=True, timeout=20).stdout
    listed = usage.split("commands:\n", 1)[1]
    commands = set()
    for line in listed.splitlines():
        words = re.match(r"  ([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?= |$)", line)
        if words:
            commands.add(words.group(1).split("  ")[0])
    assert {"account create", "account login-link", "key create", "backup", "resolve", "help"} <= commands, commands
    heads = " ".join(re.findall(r"^\.TP\n(\.B[IR]? .*)$", section("COMMANDS"), re.MULTILINE)).replace("\\-", "-")
    for command in commands:
        assert command in heads, command


def test_the_files_of_an_installed_system_are_in_the_files_section():
    files = section("FILES").replace("\\-", "-")
    for path in ["/etc/relaydeck/relaydeck.env", "/var/lib/relaydeck/relaydeck.db",
                 "/lib/systemd/system/relaydeck.service", "/lib/systemd/system/relaydeck.socket",
                 "/etc/credstore/relaydeck.apns-private-key", "/etc/credstore/relaydeck.app-totp-secret"]:
        assert f".I {path}\n" in files, path


@pytest.mark.skipif(shutil.which("groff") is None or shutil.which("man") is None, reason="needs groff and man")
def test_groff_and_man_render_it_without_a_warning():
    groff = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(MAN_PAGE)], capture_output=True, text=True,
                           timeout=60)
    assert groff.returncode == 0 and groff.stderr == "", groff.stderr
    man = subprocess.run(["man", "--warnings", "-l", str(MAN_PAGE)], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "MANWIDTH": "200"})
    assert man.returncode == 0 and man.stderr == "", man.stderr
    plain = re.sub(".\x08", "", man.stdout)  # without the overstrikes of bold and underline
    assert "account login-link --account ID" in plain and "JOURNAL_STREAM" in plain, plain


def test_make_installs_the_man_tools_the_tests_use():
    makefile = (PACKAGE_ROOT / "Makefile").read_text()
    packages = re.search(r"^APT_PACKAGES := (.*)$", makefile, re.MULTILINE).group(1).split()
    # groff renders the page here; man-db's man is what systemd-analyze verify runs for man: links.
    assert {"groff-base", "man-db"} <= set(packages), packages
