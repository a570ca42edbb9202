"""A stand-in Debian machine for the set-up script: `dpkg`, `dpkg-query`, `apt-get`, `sudo`,
`id`, `swift` and `python3` as small shell scripts in a folder that is the whole of PATH.

They share one state folder, so they agree with one another the way the real ones do: a
package `apt-get install` installs is reported installed by `dpkg-query` from then on, and
`apt-get` refuses to work for a non-root user unless it came through `sudo`. Every call is
appended to a log, one line each, with its arguments.

Besides the stand-ins, the folder links the few real programs the script and make need
(bash, env, rm, ...), so nothing else of the machine can answer in their place: a program the
test removes is really absent.
"""

import shutil
import subprocess
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = PACKAGE_ROOT / "scripts" / "ensure-deps"

REAL_PROGRAMS = ["bash", "env", "rm", "mkdir", "cat", "cp", "chmod", "make", "sh"]

# Shared head of every stand-in: where the state and the log are.
PRELUDE = """#!{bash}
state={state}
log() {{ printf '%s\\n' "$*" >> {log}; }}
"""

STANDINS = {
    "id": """
log "id $*"
[ "$1" = -u ] && cat "$state/uid"
""",
    "dpkg-query": """
log "dpkg-query $*"
package=${@: -1}
if [ -e "$state/installed/$package" ]; then
    printf 'install ok installed\\n'
else
    printf 'dpkg-query: no packages found matching %s\\n' "$package" >&2
    exit 1
fi
""",
    "dpkg": """
log "dpkg $*"
package=${@: -1}
if [ -e "$state/installed/$package" ]; then
    printf 'Package: %s\\nStatus: install ok installed\\n' "$package"
else
    printf "dpkg-query: package '%s' is not installed and no information is available\\n" "$package" >&2
    exit 1
fi
""",
    "sudo": """
log "sudo $*"
STANDIN_AS_ROOT=1 exec "$@"
""",
    # Its errors never name a package: a test that finds the name in the output finds the
    # script's own line.
    "apt-get": """
log "${DEBIAN_FRONTEND:+DEBIAN_FRONTEND=$DEBIAN_FRONTEND }apt-get $*"
if [ "$(cat "$state/uid")" != 0 ] && [ -z "${STANDIN_AS_ROOT:-}" ]; then
    echo "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)" >&2
    exit 100
fi
case $1 in
update)
    [ -e "$state/fail-update" ] && { echo "E: stand-in: the network is unreachable" >&2; exit 100; }
    ;;
install)
    [ -e "$state/fail-install" ] && { echo "E: stand-in: could not fetch the archives" >&2; exit 100; }
    shift
    for argument in "$@"; do
        case $argument in -*) ;; *) : > "$state/installed/$argument" ;; esac
    done
    ;;
esac
exit 0
""",
    "swift": """
log "swift $*"
""",
    # The venv module comes with the python3-venv package, unless this python was built
    # without it (as a self-built one can be).
    "python3": """
log "python3 $*"
case $1 in
-c)
    [ -e "$state/installed/python3-venv" ] && [ ! -e "$state/python-without-venv" ]
    ;;
-m)
    [ "$2" = venv ] || exit 2
    mkdir -p "$3/bin"
    cp "$state/venv-python" "$3/bin/python"
    ;;
*)
    exit 2
    ;;
esac
""",
}

# The python of a venv the stand-in python3 made: pytest counts as installed once pip ran.
VENV_PYTHON = """
venv=${0%/bin/python}
log "venv-python $*"
case $1 in
-c)
    [ -e "$venv/pytest-installed" ]
    ;;
-m)
    [ -e "$state/fail-pip" ] && { echo "ERROR: stand-in: no matching distribution found" >&2; exit 1; }
    : > "$venv/pytest-installed"
    ;;
esac
"""


class Machine:
    """The stand-in machine of one test. By default: root, swift on PATH, every package of
    `installed(...)` installed and nothing else, a python3 that can make a venv."""

    def __init__(self, root: Path):
        self.root = root
        self.bin = root / "bin"
        self.state = root / "state"
        self.log = root / "calls.log"
        self.venv = root / "venv"
        for folder in (self.bin, self.state / "installed"):
            folder.mkdir(parents=True)
        self.log.touch()
        bash = shutil.which("bash")
        prelude = PRELUDE.format(bash=bash, state=self.state, log=self.log)
        for name, body in STANDINS.items():
            self._write(self.bin / name, prelude + body)
        self._write(self.state / "venv-python", prelude + VENV_PYTHON)
        for name in REAL_PROGRAMS:
            (self.bin / name).symlink_to(shutil.which(name))
        self.set_uid(0)
        self.installed("python3-venv")

    @staticmethod
    def _write(path: Path, text: str) -> None:
        path.write_text(text)
        path.chmod(0o755)

    # -- the state --------------------------------------------------------------------------

    def installed(self, *packages: str) -> "Machine":
        for package in packages:
            (self.state / "installed" / package).touch()
        return self

    def missing(self, *packages: str) -> "Machine":
        for package in packages:
            (self.state / "installed" / package).unlink(missing_ok=True)
        return self

    def is_installed(self, package: str) -> bool:
        return (self.state / "installed" / package).exists()

    def set_uid(self, uid: int) -> "Machine":
        (self.state / "uid").write_text(f"{uid}\n")
        return self

    def without(self, program: str) -> "Machine":
        (self.bin / program).unlink()
        return self

    def failing(self, what: str) -> "Machine":
        """`update`, `install` (apt-get) or `pip`."""
        (self.state / f"fail-{what}").touch()
        return self

    def python_without_venv(self) -> "Machine":
        (self.state / "python-without-venv").touch()
        return self

    def healthy_venv(self) -> "Machine":
        """A venv with pytest, as a finished earlier run leaves it."""
        (self.venv / "bin").mkdir(parents=True)
        shutil.copy(self.state / "venv-python", self.venv / "bin" / "python")
        (self.venv / "pytest-installed").touch()
        return self

    # -- running ----------------------------------------------------------------------------

    def environment(self) -> dict[str, str]:
        return {"PATH": str(self.bin), "HOME": str(self.root), "LANG": "C.UTF-8"}

    def ensure_deps(self, *packages: str, venv: bool = False, python: str | None = None) -> subprocess.CompletedProcess:
        arguments = (["--venv", str(self.venv)] if venv else []) + list(packages)
        return self._run([str(SCRIPT)] + arguments, {"PYTHON": python} if python else {})

    def make(self, target: str, *variables: str) -> subprocess.CompletedProcess:
        """`make -C <package> <target>` with this machine's PATH and its venv."""
        return self._run(["make", "-s", "-C", str(PACKAGE_ROOT), target, f"VENV={self.venv}", *variables])

    def _run(self, argv: list[str], extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=self.environment() | (extra_env or {}), cwd=self.root, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)

    def calls(self, program: str | None = None) -> list[str]:
        lines = self.log.read_text().splitlines()
        if program is None:
            return lines
        return [line for line in lines if line.split(" ", 1)[0] == program or line.startswith(f"DEBIAN_FRONTEND=noninteractive {program} ")]

    def apt_calls(self) -> list[str]:
        """The apt-get calls, each as `update` or `install <packages>` (options left out)."""
        calls = []
        for line in self.calls("apt-get"):
            words = line.split()
            words = words[words.index("apt-get") + 1:]
            calls.append(" ".join(word for word in words if not word.startswith("-")))
        return calls


def makefile_list(name: str) -> list[str]:
    """A package list of the Makefile, as `NAME := a b c`."""
    for line in (PACKAGE_ROOT / "Makefile").read_text().splitlines():
        left, sep, right = line.partition(":=")
        if sep and left.strip() == name:
            return right.split()
    raise AssertionError(f"no {name} in the Makefile")


def plain_line(done: subprocess.CompletedProcess, last: bool = True) -> str:
    """The one line the script ends a failed run with: the only one of the script on stderr,
    and the last there (what apt-get or pip said comes before it; make adds its own after)."""
    assert done.returncode != 0, done
    ours = [line for line in done.stderr.splitlines() if line.startswith("ensure-deps: ")]
    assert len(ours) == 1, done.stderr
    if last:
        assert done.stderr.splitlines()[-1] == ours[0], done.stderr
    return ours[0]
