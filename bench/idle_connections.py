#!/usr/bin/env python3
"""Opens N keep-alive connections to a loopback HTTP server, sends one GET /health on each,
reads each answer, then holds them all open until SIGTERM.

Usage: idle_connections.py PORT [N]    prints `ready N` once every answer has arrived.
The caller raises `ulimit -n` first: N sockets need N descriptors here and in the server.
"""

import signal
import socket
import sys
import time

REQUEST = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def read_answer(sock: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed before the answer")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise ConnectionError(f"unexpected answer: {head[:80]!r}")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed inside the body")
        body += chunk


def main() -> int:
    port = int(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    held = []
    started = time.monotonic()
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(REQUEST)
        read_answer(sock)
        held.append(sock)
    elapsed = time.monotonic() - started
    print(f"ready {len(held)} in {elapsed:.1f} s", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
