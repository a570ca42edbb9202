"""Bash completion (packaging/bash-completion/relaydeckd): sourced in a plain bash, its
answers for the command line so far, and the same commands as the binary's usage."""

import re
import shutil
import subprocess

import pytest

from server_process import PACKAGE_ROOT, binary_path

COMPLETION = PACKAGE_ROOT / "packaging" / "bash-completion" / "relaydeckd"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

SCRIPT = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _relaydeckd; printf "%s\\n" "${COMPREPLY[@]}"'


def complete(*words: str, cwd=None) -> list[str]:
    """COMPREPLY for the command line `words` (the last one the word being typed)."""
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", SCRIPT, "bash", str(COMPLETION), "relaydeckd", *words],
                          capture_output=True, text=True, timeout=20, cwd=cwd)
    assert done.returncode == 0 and done.stderr == "", done
    return sorted(line for line in done.stdout.splitlines() if line)


def usage(*words: str) -> str:
    done = subprocess.run([str(binary_path()), *words, "--help"], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done
    return done.stdout


def test_sourcing_registers_the_completion():
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", f'source "{COMPLETION}"; complete -p relaydeckd'],
                          capture_output=True, text=True, timeout=20)
    assert done.stdout.strip() == "complete -F _relaydeckd relaydeckd", done


def test_the_first_word_is_every_command_of_the_usage():
    listed = usage().split("commands:\n", 1)[1]
    commands = sorted({m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)", listed, re.MULTILINE)})
    assert "account" in commands and "check-config" in commands, commands
    assert complete("") == commands
    assert complete("ac") == ["account"]
    assert complete("-") == ["--help", "-h"]


@pytest.mark.parametrize("group", ["account", "key"])
def test_a_group_offers_its_subcommands(group):
    subcommands = sorted(set(re.findall(rf"relaydeckd {group} ([a-z-]+)", usage(group))))
    assert subcommands, usage(group)
    assert complete(group, "") == subcommands
    assert complete("help", group, "") == subcommands


def test_options_not_given_yet_and_no_guess_at_their_values():
    assert complete("account", "login-link", "--") == ["--account", "--help"]
    assert complete("key", "create", "--") == ["--account", "--help", "--label"]
    assert complete("key", "create", "--account", "acc_1", "--") == ["--help", "--label"]
    assert complete("key", "create", "--account", "") == []
    assert complete("account", "create", "") == []
    assert complete("version", "") == []


def test_backup_offers_file_names(tmp_path):
    (tmp_path / "copy.db").write_text("")
    assert complete("backup", "co", cwd=tmp_path) == ["copy.db"]


def test_migrate_to_postgres_offers_its_options_and_file_names_after_from(tmp_path):
    (tmp_path / "relaydeck.db").write_text("")
    assert complete("migrate-to-postgres", "--") == ["--from", "--help", "--to"]
    assert complete("migrate-to-postgres", "--from", "relaydeck.db", "--") == ["--help", "--to"]
    assert complete("migrate-to-postgres", "--to", "postgres://db/x", "--") == ["--from", "--help"]
    assert complete("migrate-to-postgres", "--from", "rel", cwd=tmp_path) == ["relaydeck.db"]
    # A connection string is the operator's to type (it may hold a password): no guess.
    assert complete("migrate-to-postgres", "--to", "", cwd=tmp_path) == []


def test_the_package_installs_it():
    build = (PACKAGE_ROOT / "packaging" / "build-deb").read_text()
    assert "/usr/share/bash-completion/completions" in build
    assert re.search(r'bash-completion/relaydeckd"? +"?\$pkg/usr/share/bash-completion/completions/relaydeckd', build), build
