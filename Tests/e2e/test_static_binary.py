"""The binary under test is the one to ship: fully static (no loader, no shared library), and
its C library still resolves names without the machine's shared NSS modules."""

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from elf import read_link_info
from server_process import ServerProcess, base_environment, binary_path, resident_bytes

# A DNS label may have 63 bytes: the C library refuses a longer one without asking a server.
UNRESOLVABLE = "a" * 64 + ".invalid"


def resolve(host: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary_path()), "resolve", host], env=base_environment(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)


def test_the_binary_has_no_interpreter_and_needs_no_shared_library():
    info = read_link_info(binary_path())
    assert info.interpreter is None, f"loaded by {info.interpreter}"
    assert info.needed == [], f"needs {info.needed}"


def test_the_start_leaves_less_than_12_mb_resident(tmp_path):
    # The bound of BENCHMARKS.md's idle row. With the whole binary in the page cache (read
    # here first), the kernel maps the 64 KiB around each page of code the start touches; the
    # link's order file (packaging/relaydeckd.order) keeps that code together. Without it
    # most of the 11 MB of code was resident (13.3 MB in all).
    binary_path().read_bytes()
    server = ServerProcess(tmp_path).start()
    try:
        time.sleep(0.3)
        resident = resident_bytes(server.pid)
        assert resident < 12 * 1024 * 1024, f"{resident / 1048576:.1f} MiB resident after start"
    finally:
        server.stop()


def test_the_elf_reader_sees_what_a_dynamic_program_needs():
    # Without this, a reader that found nothing anywhere would pass the test above.
    program = Path(shutil.which("curl") or "/bin/sh").resolve()
    info = read_link_info(program)
    assert info.interpreter and info.interpreter.startswith("/lib"), info
    assert any(name.startswith("libc.so") for name in info.needed), info
    assert not info.is_static


def test_resolve_localhost_prints_loopback_addresses(tmp_path):
    done = resolve("localhost", tmp_path)
    assert done.returncode == 0, done
    lines = done.stdout.splitlines()
    assert lines and set(lines) <= {"127.0.0.1", "::1"}, done.stdout
    assert done.stderr == ""


def test_resolve_an_unknown_name_says_so_in_one_line_and_exits_1(tmp_path):
    done = resolve(UNRESOLVABLE, tmp_path)
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert done.stderr.startswith(f'relaydeckd: resolve: cannot resolve "{UNRESOLVABLE}": '), done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.endswith("\n"), done.stderr


@pytest.mark.parametrize("arguments", [[], ["localhost", "extra"]])
def test_resolve_needs_exactly_one_host(arguments, tmp_path):
    done = subprocess.run([str(binary_path()), "resolve", *arguments], env=base_environment(tmp_path),
                          capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done
    # A wrong use prints the command's usage on stderr, as every command does (its first line
    # is the synopsis).
    assert done.stderr.startswith("relaydeckd: usage: relaydeckd resolve HOST\n"), done.stderr
    assert done.stdout == ""
