"""The Origin's scheme, the Host of MCP and web-console requests (DNS rebinding), and several
session cookies in one request (issue 26)."""

import json
import socket
import subprocess

from api import assert_error, create_account
from http_clients import PythonClient

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
FOREIGN_ORIGIN = ("forbidden", "The Origin header is not the origin of this server.")
FOREIGN_HOST = ("forbidden", "The Host header is not a name of this server. Use its address, or set PUBLIC_URL on the server.")
UNAUTHORIZED = ("unauthorized", "The credential is missing or wrong.")
COOKIE = "relaydeck_session"


def own_origin(server) -> str:
    return f"http://{server.host}:{server.port}"


def sign_in(client, server, token: str) -> str:
    """POST /web/session with the account token; the session cookie's value."""
    response = client.call("POST", "/web/session", json={"account_token": token}, headers={"Origin": own_origin(server)})
    assert response.status == 201, response
    cookie = response.header("Set-Cookie")
    assert cookie.startswith(COOKIE + "="), cookie
    return cookie.split(";", 1)[0].split("=", 1)[1]


def test_an_https_origin_is_not_the_origin_of_a_plain_http_server(client, agent, server):
    _, _, secret = agent
    https = client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Origin": f"https://{server.host}:{server.port}"})
    assert_error(https, 403, FOREIGN_ORIGIN)
    assert client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Origin": own_origin(server)}).status == 200


def test_a_rebound_host_is_refused_on_mcp(client, agent, server):
    """A page of evil.example whose name now points at 127.0.0.1 sends its own Host and a
    matching Origin; an agent that sends no Origin uses a name or address of this machine."""
    _, _, secret = agent
    evil = f"evil.example:{server.port}"
    rebound = client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Host": evil, "Origin": f"http://{evil}"})
    assert_error(rebound, 403, FOREIGN_HOST)
    assert_error(client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Host": evil}), 403, FOREIGN_HOST)
    # Before the credential, as the Origin check is.
    assert_error(client.call("POST", "/mcp", json=PING, headers={"Host": evil}), 403, FOREIGN_HOST)
    for host in [f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"agent.localhost:{server.port}",
                 f"[::1]:{server.port}", socket.gethostname()]:
        assert client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Host": host}).status == 200, host
    # `curl http://127.0.0.1:PORT/mcp` as an agent sends it: no Origin, the address as Host.
    assert client.call("POST", "/mcp", json=PING, api_key=secret).status == 200


def test_the_install_script_is_given_only_under_an_address_mcp_answers_to(client, server):
    """The script points agents at /mcp by the address it was fetched by: under a name /mcp
    refuses, it would set agents up to be refused."""
    assert_error(client.call("GET", "/install", headers={"Host": f"evil.example:{server.port}"}), 403, FOREIGN_HOST)
    name = socket.gethostname().split(".")[0]
    for host in [f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"{name}.local:{server.port}"]:
        response = client.call("GET", "/install", headers={"Host": host})
        assert response.status == 200, (host, response)
        assert f"http://{host}".encode() in response.body, host


def test_the_machines_mdns_name_is_its_own(client, agent, server):
    _, _, secret = agent
    name = socket.gethostname().split(".")[0]
    assert client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Host": f"{name}.local:{server.port}"}).status == 200


def test_a_rebound_host_is_refused_on_the_web_console(client, server):
    _, token = create_account(client)
    evil = f"evil.example:{server.port}"
    signing_in = client.call("POST", "/web/session", json={"account_token": token},
                             headers={"Host": evil, "Origin": f"http://{evil}"})
    assert_error(signing_in, 403, FOREIGN_HOST)
    cookie = sign_in(client, server, token)
    assert client.call("GET", "/v1/keys", headers={"Cookie": f"{COOKIE}={cookie}"}).status == 200
    read = client.call("GET", "/v1/keys", headers={"Cookie": f"{COOKIE}={cookie}", "Host": evil})
    assert_error(read, 403, FOREIGN_HOST)
    change = client.call("POST", "/v1/keys", json={"label": "x"},
                         headers={"Cookie": f"{COOKIE}={cookie}", "Host": evil, "Origin": f"http://{evil}"})
    assert_error(change, 403, FOREIGN_HOST)
    # The scheme of a change's Origin is the server's: plain HTTP here.
    https = client.call("POST", "/v1/keys", json={"label": "x"},
                        headers={"Cookie": f"{COOKIE}={cookie}", "Origin": f"https://{server.host}:{server.port}"})
    assert_error(https, 403, FOREIGN_ORIGIN)
    assert client.call("GET", "/v1/keys", token=token).json == {"keys": []}


def test_with_public_url_the_host_is_its_host_or_this_machines(start_server):
    server = start_server({"PUBLIC_URL": "https://tasks.example.test"})
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    key = py.call("POST", "/v1/keys", json={"label": "Cursor"}, token=token).json["secret"]
    origin = {"Origin": "https://tasks.example.test"}
    assert py.call("POST", "/mcp", json=PING, api_key=key, headers={**origin, "Host": "tasks.example.test"}).status == 200
    # A proxy that passes its upstream address as Host (nginx's default) still works.
    assert py.call("POST", "/mcp", json=PING, api_key=key, headers=origin).status == 200
    assert_error(py.call("POST", "/mcp", json=PING, api_key=key, headers={**origin, "Host": "evil.example"}), 403, FOREIGN_HOST)


def test_a_stray_session_cookie_before_the_live_one_does_not_sign_the_person_out(client, server):
    account, token = create_account(client)
    cookie = sign_in(client, server, token)
    stray = "mcs_" + "A" * 43
    for header in [f"{COOKIE}={stray}; {COOKIE}={cookie}", f"{COOKIE}={cookie}; {COOKIE}={stray}",
                   f"{COOKIE}=; {COOKIE}=junk; {COOKIE}={cookie}"]:
        response = client.call("GET", "/v1/account", headers={"Cookie": header})
        assert response.status == 200 and response.json["id"] == account["id"], (header, response)
    assert_error(client.call("GET", "/v1/account", headers={"Cookie": f"{COOKIE}={stray}"}), 401, UNAUTHORIZED)
    # Only the first few are tried: a header of many cookies costs no more than four lookups.
    many = "; ".join([f"{COOKIE}={stray}"] * 4 + [f"{COOKIE}={cookie}"])
    assert_error(client.call("GET", "/v1/account", headers={"Cookie": many}), 401, UNAUTHORIZED)


def test_live_sessions_of_two_accounts_in_one_request_are_refused(client, server):
    """A page could plant its own account's session beside the person's: neither is taken."""
    _, token = create_account(client)
    _, planted_token = create_account(client)
    mine, planted = sign_in(client, server, token), sign_in(client, server, planted_token)
    both = client.call("GET", "/v1/account", headers={"Cookie": f"{COOKIE}={planted}; {COOKIE}={mine}"})
    assert_error(both, 401, UNAUTHORIZED)
    second = sign_in(client, server, token)
    same = client.call("GET", "/v1/account", headers={"Cookie": f"{COOKIE}={mine}; {COOKIE}={second}"})
    assert same.status == 200, same


def test_an_http_origin_is_not_the_origin_of_an_https_server(start_server, tmp_path):
    """With TLS_CERT_FILE every connection is TLS, so the own scheme is https."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "key.pem", "-out", "cert.pem", "-subj", "/CN=127.0.0.1", "-days", "2",
                    "-addext", "subjectAltName=IP:127.0.0.1"], cwd=tmp_path, check=True, capture_output=True, timeout=60)
    server = start_server({"TLS_CERT_FILE": str(tmp_path / "cert.pem"), "TLS_KEY_FILE": str(tmp_path / "key.pem")})
    base = f"https://127.0.0.1:{server.port}"

    def curl(path: str, body: dict, headers: dict) -> tuple[int, dict]:
        args = ["curl", "-sS", "-k", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", base + path,
                "-H", "Content-Type: application/json", "--data-binary", json.dumps(body)]
        for name, value in headers.items():
            args += ["-H", f"{name}: {value}"]
        done = subprocess.run(args, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        text, _, status = done.stdout.rpartition("\n")
        return int(status), json.loads(text) if text else {}

    status, made = curl("/v1/accounts", {}, {})
    assert status == 201, made
    status, key = curl("/v1/keys", {"label": "Cursor"}, {"Authorization": f"Bearer {made['token']}"})
    assert status == 201, key
    auth = {"X-API-Key": key["secret"]}
    status, refused = curl("/mcp", PING, {**auth, "Origin": f"http://127.0.0.1:{server.port}"})
    assert (status, refused) == (403, {"error": {"code": FOREIGN_ORIGIN[0], "message": FOREIGN_ORIGIN[1]}})
    assert curl("/mcp", PING, {**auth, "Origin": base})[0] == 200
