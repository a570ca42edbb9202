"""Push on, with devices (issue 20: `pruneWindows` and "a bench row with 20 devices per
account"): the settings that turn APNs on against a service that stands still, and the
devices an account registers.

APNs here is a loopback socket that listens and never answers: the server's HTTP/2 client
connects (the kernel completes the handshake), sends its preface and waits for the SETTINGS
that never come. So every push a write plans is written to the outbox and stays there, and the
rows measure what a write costs with push on (the planner's reads, a job per device, the
coalescing windows and their prune) without the sending, which goes at Apple's pace, not the
server's."""

import socket
import subprocess
from pathlib import Path

from common import call, new_account

_listeners: list[socket.socket] = []


def push_env(work: Path) -> dict:
    """The APNS_* settings: a P-256 key made for the run, a topic, and both services at a
    socket that never answers (kept open until this process ends)."""
    key = work / "apns-bench.p8"
    if not key.exists():
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-out", str(key)], check=True, capture_output=True)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    _listeners.append(listener)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    return {"APNS_TEAM_ID": "TEAM123456", "APNS_KEY_ID": "KEY1234567", "APNS_PRIVATE_KEY_FILE": str(key),
            "APNS_BUNDLE_ID": "app.relaydeck.bench", "APNS_PRODUCTION_URL": url, "APNS_SANDBOX_URL": url}


def register_devices(port: int, token: str, count: int):
    """`count` iPhones for the account (20 is the contract's most), each with an APNs token
    and a widget push token: a task change plans a notification job for each and opens each
    one's widget reload window."""
    for n in range(count):
        call(port, "PUT", f"/v1/devices/dev_00000000-0000-4000-8000-{n:012d}", token=token, expect=200,
             body={"platform": "ios", "model": "iPhone18,1", "os_version": "27.0", "app_version": "1.0 (1)",
                   "apns_environment": "production", "apns_token": f"{n:04x}" * 16,
                   "widget_push_token": f"{n + 5000:04x}" * 16})


def populate(port: int, accounts: int, devices: int = 20) -> None:
    """`accounts` other accounts, each with `devices` devices and one task made by its key: a
    server where every account's devices have a widget reload window (`push_windows`), which
    the planner's prune must not read through on every write (migration 9's index)."""
    for _ in range(accounts):
        token, [(_, secret)] = new_account(port, 1)
        register_devices(port, token, devices)
        call(port, "POST", "/v1/tasks", {"title": "a task of another account"}, key=secret, expect=201)
