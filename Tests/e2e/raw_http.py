"""HTTP/1.1 over a raw socket, for the framing tests: we choose every byte and every send."""

import json as jsonlib
import socket
import time

from server_process import record_secrets


class RawResponse:
    def __init__(self, version: str, status: int, reason: str, headers: list[tuple[str, str]], body: bytes):
        self.version, self.status, self.reason = version, status, reason
        self.headers, self.body = headers, body
        record_secrets(body)

    def header(self, name: str) -> str | None:
        values = [v for (n, v) in self.headers if n.lower() == name.lower()]
        assert len(values) <= 1, f"{name} appears {len(values)} times"
        return values[0] if values else None

    @property
    def json(self):
        return jsonlib.loads(self.body)

    def __repr__(self) -> str:
        return f"<RawResponse {self.version} {self.status} {self.headers!r} {self.body[:300]!r}>"


class ConnectionClosed(Exception):
    pass


class RawConnection:
    """One TCP connection with a read buffer; TCP_NODELAY so each send leaves on its own."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.buffer = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def send_bytewise(self, data: bytes | str, pause: float = 0.001) -> None:
        """One byte per send; the pause makes the server see (almost) every byte in its own read."""
        if isinstance(data, str):
            data = data.encode()
        for i in range(len(data)):
            self.sock.sendall(data[i:i + 1])
            if pause:
                time.sleep(pause)

    def _fill(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no complete answer in time; have {self.buffer[:300]!r}")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError(f"no complete answer in time; have {self.buffer[:300]!r}") from None
        if not chunk:
            raise ConnectionClosed(f"closed by the server; have {self.buffer[:300]!r}")
        self.buffer += chunk

    def read_response(self, head_request: bool = False, timeout: float | None = None) -> RawResponse:
        """The next answer (an interim 1xx too). Raises ConnectionClosed on EOF before one."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while b"\r\n\r\n" not in self.buffer:
            self._fill(deadline)
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        version, status, reason = (lines[0].split(" ", 2) + [""])[:3]
        status = int(status)
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name, value.strip()))
        response = RawResponse(version, status, reason, headers, b"")
        if head_request or status < 200 or status in (204, 304):
            return response
        length = response.header("Content-Length")
        if response.header("Transfer-Encoding"):
            response.body = self._read_chunked(deadline)
        elif length is not None:
            while len(self.buffer) < int(length):
                self._fill(deadline)
            response.body, self.buffer = self.buffer[:int(length)], self.buffer[int(length):]
        else:
            response.body = self.read_until_eof(deadline - time.monotonic())
        record_secrets(response.body)
        return response

    def _read_chunked(self, deadline: float) -> bytes:
        body = b""
        while True:
            while b"\r\n" not in self.buffer:
                self._fill(deadline)
            size_line, _, self.buffer = self.buffer.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                while b"\r\n\r\n" not in b"\r\n" + self.buffer:
                    self._fill(deadline)
                _, _, self.buffer = (b"\r\n" + self.buffer).partition(b"\r\n\r\n")
                return body
            while len(self.buffer) < size + 2:
                self._fill(deadline)
            body += self.buffer[:size]
            self.buffer = self.buffer[size + 2:]

    def read_until_eof(self, timeout: float | None = None) -> bytes:
        """Everything until the server closes; a reset after the data counts as a close."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while True:
            try:
                self._fill(deadline)
            except ConnectionClosed:
                break
            except ConnectionResetError:
                break
        data, self.buffer = self.buffer, b""
        return data

    def expect_closed(self, timeout: float = 10.0) -> None:
        """Asserts that the server closed: nothing more arrives, then EOF (or a reset)."""
        try:
            data = self.read_until_eof(timeout)
        except TimeoutError:
            raise AssertionError("the server kept the connection open") from None
        assert data == b"", f"unexpected bytes before the close: {data[:300]!r}"


def request_bytes(method: str, target: str, body: bytes | str | None = None,
                  headers: dict[str, str] | list[tuple[str, str]] | None = None,
                  host: str = "127.0.0.1", version: str = "HTTP/1.1") -> bytes:
    """A request as bytes; Host and (for a body) Content-Length are added unless given."""
    if isinstance(body, str):
        body = body.encode()
    fields = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
    names = {n.lower() for (n, _) in fields}
    if "host" not in names and host is not None:
        fields.insert(0, ("Host", host))
    if body is not None and "content-length" not in names and "transfer-encoding" not in names:
        fields.append(("Content-Length", str(len(body))))
    head = f"{method} {target} {version}\r\n" + "".join(f"{n}: {v}\r\n" for (n, v) in fields) + "\r\n"
    return head.encode("latin-1") + (body or b"")
