"""Names of the test's own choosing for the server's lookups: the server runs in a mount
namespace of its own where /etc/hosts is a file of the test's (bind-mounted over the real one,
which nothing else sees). The static binary resolves through glibc's `files` source first
(`/etc/nsswitch.conf`), so a name listed there resolves to the test's address with no DNS
server asked. The file can be rewritten while the server runs (in place: the mount follows the
inode), as DNS answers change.

As root (CI) a mount namespace is enough; otherwise a user namespace maps the caller to root in
it. A machine that allows neither skips the test with the reason."""

import os
import subprocess
from pathlib import Path

import pytest

# The script run after `unshare`: $0 is the hosts file, "$@" the server's command line.
BIND_AND_EXEC = 'mount --bind "$0" /etc/hosts && exec "$@"'


def unshare_command() -> list[str]:
    flags = "-m" if os.geteuid() == 0 else "-rm"
    command = ["unshare", flags, "--propagation", "private"]
    probe = subprocess.run(command + ["true"], capture_output=True, text=True, timeout=10)
    if probe.returncode != 0:
        pytest.skip(f"this machine cannot make a mount namespace for the test's /etc/hosts: {probe.stderr.strip()}")
    return command


class HostsFile:
    """The /etc/hosts the server sees: the machine's own lines, then the test's names."""

    def __init__(self, directory: Path, names: dict[str, str]):
        self.path = Path(directory) / "hosts"
        self.base = Path("/etc/hosts").read_text()
        self.write(names)

    def write(self, names: dict[str, str]) -> None:
        text = self.base.rstrip("\n") + "\n" + "".join(f"{address} {name}\n" for name, address in names.items())
        # In place, so the bind mount (which holds the inode) sees the new text.
        with open(self.path, "r+" if self.path.exists() else "w") as out:
            out.seek(0)
            out.write(text)
            out.truncate()

    def argv_prefix(self) -> list[str]:
        return unshare_command() + ["sh", "-c", BIND_AND_EXEC, str(self.path)]
