"""The stand-ins for a Mac's BSD tools (bsd_tools.py) refuse the GNU-only forms their man pages
do not have and pass the BSD forms through, so that the install script's runs with them
(test_site.py, shell "macos-sh") can fail on a GNU-only flag."""

import subprocess
import pytest

from bsd_tools import macos_sh

GNU_ONLY = [
    ["sed", "-i", "s/a/b/", "f"],       # BSD takes the script as -i's extension
    ["sed", "s/a\\+/b/", "f"],          # \+ is GNU's; BSD basic regular expressions have none
    ["grep", "-P", "a", "f"],
    ["grep", "a\\|b", "f"],
    ["grep", "a", "f", "-v"],           # BSD getopt stops at the first operand
    ["stat", "-c", "%a", "f"],
    ["mktemp", "-d", "--tmpdir"],
    ["mkdir", "--parents", "d"],
    ["cp", "-t", "d", "f"],
    ["head", "-n", "-1", "f"],
    ["date", "-d", "now"],
    ["date", "+%s%N"],
    ["chmod", "--reference=f", "f"],
    ["awk", '{ print gensub(/a/, "b", "g") }', "f"],
    ["readlink", "-f", "f"],            # no stand-in: not found at all
]

BSD_FORMS = [
    (["sed", "-i", "", "s/a/b/", "f"], ""),
    (["sed", "-i", ".bak", "s/b/c/", "f"], ""),
    (["sed", "-E", "s/(c)+/d/", "f"], "d\n"),
    (["grep", "-v", "x", "f"], "c\n"),
    (["head", "-n", "1", "f"], "c\n"),
    (["cut", "-c", "1", "f"], "c\n"),
    (["awk", "{ print ENVIRON[\"HOME\"] }", "f"], "/nowhere\n"),
]


@pytest.fixture
def bsd(tmp_path):
    argv, extra, tools = macos_sh(tmp_path)
    (tmp_path / "f").write_text("a\n")

    def run(command: list[str], script: str = '"$@"'):
        return subprocess.run([*argv, "-c", script, "sh", *command], cwd=tmp_path, capture_output=True, text=True,
                              env={"PATH": tools, "HOME": "/nowhere", **extra}, timeout=30)
    return run



@pytest.mark.parametrize("command", GNU_ONLY, ids=[" ".join(c) for c in GNU_ONLY])
def test_a_gnu_only_form_is_refused(bsd, command):
    done = bsd(command)
    assert done.returncode in (64, 127), done
    assert ("refused as macOS's" in done.stderr) == (done.returncode == 64), done.stderr


def test_the_bsd_forms_run_and_do_what_they_do_on_a_mac(bsd, tmp_path):
    for command, out in BSD_FORMS:
        done = bsd(command)
        assert (done.returncode, done.stdout, done.stderr) == (0, out, ""), command
    assert (tmp_path / "f.bak").read_text() == "b\n"


def test_ls_shows_the_mode_with_the_at_sign_of_extended_attributes(bsd, tmp_path):
    (tmp_path / "f").chmod(0o644)
    assert bsd(["ls", "-ld", "f"]).stdout.startswith("-rw-r--r--@ 1 ")


def test_the_shell_is_bash_in_posix_mode_with_echo_expanding_backslashes(bsd):
    said = bsd([], 'echo "a\\tb"; shopt -o posix; echo "$BASH_COMPAT"')
    assert said.stdout.splitlines() == ["a\tb", "posix          \ton", "3.2"], said
