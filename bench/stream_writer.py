"""The writes of the `streams` row (bench/scale.py), in a process of its own so that the
reader of the streams does not share it:

    python3 bench/stream_writer.py PORT PLAN_FILE RATE SECONDS OUT
"""

import json
import re
import selectors
import socket
import sys
import time
from pathlib import Path


def stream_writer(port: int, plan: list[tuple[str, str]], rate: int, seconds: int, out: Path):
    """In a process of its own: `rate` PATCHes a second for `seconds`, the accounts of `plan`
    (task, key secret) taking turns, each a new progress of its task, over 8 keep-alive
    connections; a `GET /health` every 10 ms on a ninth. Writes what it sent (task, progress,
    monotonic send time) and the latencies of the answers to `out`."""
    writers = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
    probe = socket.create_connection(("127.0.0.1", port))
    for sock in writers + [probe]:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
    selector = selectors.DefaultSelector()
    pending = {sock: [] for sock in writers + [probe]}
    buffers = {sock: b"" for sock in writers + [probe]}
    for sock in pending:
        selector.register(sock, selectors.EVENT_READ)
    sent, answers, health = [], [], []
    start = time.monotonic()
    next_probe = start
    total = rate * seconds
    k = 0
    while k < total or any(pending.values()):
        now = time.monotonic()
        while k < total and start + k / rate <= now:
            task, secret = plan[k % len(plan)]
            progress = (k // len(plan)) % 100 + 1
            body = json.dumps({"progress": progress}).encode()
            data = (f"PATCH /v1/tasks/{task} HTTP/1.1\r\nHost: b\r\nX-API-Key: {secret}\r\nContent-Type: "
                    f"application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
            sock = writers[k % len(writers)]
            sock.setblocking(True)
            sock.sendall(data)
            sock.setblocking(False)
            pending[sock].append(now)
            sent.append((task, progress, now))
            k += 1
        if k < total and now >= next_probe and not pending[probe]:
            probe.sendall(b"GET /health HTTP/1.1\r\nHost: b\r\n\r\n")
            pending[probe].append(now)
            next_probe = now + 0.01
        for key, _ in selector.select(0.0005):
            sock = key.fileobj
            buffers[sock] += sock.recv(65536)
            while b"\r\n\r\n" in buffers[sock]:
                head, rest = buffers[sock].split(b"\r\n\r\n", 1)
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
                if len(rest) < length:
                    break
                buffers[sock] = rest[length:]
                took = (time.monotonic() - pending[sock].pop(0)) * 1000
                (health if sock is probe else answers).append(took)
                if not head.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(f"bench: a write of the streams row gave {head[:40]!r}")
        if time.monotonic() - start > seconds + 30:
            raise SystemExit("bench: the writes of the streams row did not end")
    out.write_text(json.dumps({"sent": sent, "answers": answers, "health": health,
                               "seconds": time.monotonic() - start}))


if __name__ == "__main__":
    stream_writer(int(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()), int(sys.argv[3]), int(sys.argv[4]),
                  Path(sys.argv[5]))
