"""Two independent HTTP clients with one interface: Python's http.client and curl.

Neither is ours, so a test that passes through both checks the server against two real
client implementations. Every answer body is scanned for secrets (see server_process).
"""

import http.client
import json as jsonlib
import subprocess

from server_process import record_secrets

_NO_BODY = object()


class Response:
    """One final answer: status, header fields in order, body bytes."""

    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes, reason: str = ""):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        record_secrets(body)
        for name, value in headers:
            if name.lower() == "set-cookie":
                record_secrets(value)

    def header(self, name: str) -> str | None:
        """The value of the one field `name` (case-insensitive); None when absent."""
        values = self.header_all(name)
        assert len(values) <= 1, f"{name} appears {len(values)} times: {values}"
        return values[0] if values else None

    def header_all(self, name: str) -> list[str]:
        lowered = name.lower()
        return [v for (n, v) in self.headers if n.lower() == lowered]

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    @property
    def json(self):
        return jsonlib.loads(self.body)

    def __repr__(self) -> str:
        return f"<Response {self.status} {self.headers!r} {self.body[:300]!r}>"


def _request_headers(token, api_key, headers, has_body):
    out = {}
    if has_body:
        out["Content-Type"] = "application/json"
    if token is not None:
        out["Authorization"] = f"Bearer {token}"
    if api_key is not None:
        out["X-API-Key"] = api_key
    out.update(headers or {})
    return out


def _encode_body(json, body):
    if json is not _NO_BODY:
        return jsonlib.dumps(json).encode()
    if isinstance(body, str):
        return body.encode()
    return body


class PythonClient:
    """http.client, one fresh connection per call."""

    name = "python"

    def __init__(self, host: str, port: int, timeout: float = 30.0):
        self.host, self.port, self.timeout = host, port, timeout

    def call(self, method: str, path: str, json=_NO_BODY, body: bytes | str | None = None,
             token: str | None = None, api_key: str | None = None,
             headers: dict[str, str] | None = None) -> Response:
        payload = _encode_body(json, body)
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=payload,
                         headers=_request_headers(token, api_key, headers, payload is not None))
            answer = conn.getresponse()
            data = answer.read()
            return Response(answer.status, answer.getheaders(), data, answer.reason)
        finally:
            conn.close()


class CurlClient:
    """curl in a subprocess (`curl -sS -i --http1.1`), parsing what it prints."""

    name = "curl"

    def __init__(self, host: str, port: int, timeout: float = 30.0):
        self.host, self.port, self.timeout = host, port, timeout

    def call(self, method: str, path: str, json=_NO_BODY, body: bytes | str | None = None,
             token: str | None = None, api_key: str | None = None,
             headers: dict[str, str] | None = None) -> Response:
        payload = _encode_body(json, body)
        argv = ["curl", "-sS", "-i", "--http1.1", "--max-time", str(int(self.timeout))]
        if method == "HEAD":
            argv.append("-I")
        else:
            argv += ["-X", method]
        for name, value in _request_headers(token, api_key, headers, payload is not None).items():
            argv += ["-H", f"{name}: {value}" if value != "" else f"{name};"]
        if payload is not None:
            # The body comes on stdin, so any byte (even a leading @) is sent as is.
            argv += ["--data-binary", "@-"]
        argv.append(f"http://{self.host}:{self.port}{path}")
        done = subprocess.run(argv, input=payload or b"", capture_output=True, timeout=self.timeout + 10)
        assert done.returncode == 0, f"curl failed ({done.returncode}): {done.stderr.decode(errors='replace')}"
        return parse_curl_output(done.stdout)


def parse_curl_output(raw: bytes) -> Response:
    """`curl -i` prints every answer's head (interim 100s too), then the final body."""
    rest = raw
    while True:
        head, sep, after = rest.partition(b"\r\n\r\n")
        assert sep, f"no complete head in curl output: {raw[:500]!r}"
        lines = head.decode("latin-1").split("\r\n")
        version, status, reason = (lines[0].split(" ", 2) + [""])[:3]
        status = int(status)
        if 100 <= status < 200:
            rest = after
            continue
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name, value.strip()))
        return Response(status, headers, after, reason)
