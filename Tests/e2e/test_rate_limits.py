"""Rate limits (overview.md#rate-limits): per credential per minute, accounts per IP per hour,
and the client address behind a trusted proxy."""

import pytest

from api import assert_rate_limited, create_account, create_key
from http_clients import CurlClient, PythonClient


def clients(server):
    return PythonClient(server.host, server.port), CurlClient(server.host, server.port)


def test_sixth_request_of_a_token_in_a_minute_is_429(start_server):
    server = start_server({"RATE_LIMIT_REQUESTS_PER_MINUTE": "5"})
    py, curl = clients(server)
    _, token = create_account(py)
    _, other = create_account(py)
    statuses = [py.call("GET", "/v1/account", token=token).status for _ in range(5)]
    assert statuses == [200] * 5
    assert_rate_limited(curl.call("GET", "/v1/keys", token=token), max_seconds=60)
    assert_rate_limited(py.call("POST", "/v1/keys", json={"label": "x"}, token=token), max_seconds=60)
    # Another credential has a budget of its own.
    assert py.call("GET", "/v1/account", token=other).status == 200
    # Requests without a credential are not counted against anyone.
    assert py.call("GET", "/health").status == 200
    assert py.call("POST", "/v1/accounts", json={}).status == 201


def test_limit_counts_every_authenticated_request_even_failed_ones(start_server):
    server = start_server({"RATE_LIMIT_REQUESTS_PER_MINUTE": "5"})
    py, _ = clients(server)
    _, token = create_account(py)
    answers = [
        py.call("PATCH", "/v1/account", json={"nope": 1}, token=token).status,
        py.call("PATCH", "/v1/keys/key_" + "0" * 26, json={"label": "x"}, token=token).status,
        py.call("POST", "/v1/keys", json={"label": ""}, token=token).status,
        py.call("GET", "/v1/keys", token=token).status,
        py.call("HEAD", "/v1/account", token=token).status,
    ]
    assert answers == [422, 404, 422, 200, 200]
    assert_rate_limited(py.call("GET", "/v1/account", token=token), max_seconds=60)


def test_api_key_on_an_account_route_is_403_even_past_the_limit(start_server):
    # api-behaviour.md checks 403 (wrong credential type) before 429: a key that may not
    # use the route learns that, whatever its budget. Each request still counts as a use.
    server = start_server({"RATE_LIMIT_REQUESTS_PER_MINUTE": "5"})
    py, _ = clients(server)
    _, token = create_account(py)
    key, secret = create_key(py, token)
    statuses = [py.call("GET", "/v1/keys", api_key=secret).status for _ in range(7)]
    assert statuses == [403] * 7
    listed = py.call("GET", "/v1/keys", token=token).json["keys"]
    assert listed[0]["id"] == key["id"] and listed[0]["last_used_at"] is not None


def test_fourth_account_from_one_address_in_an_hour_is_429(start_server):
    server = start_server({"RATE_LIMIT_ACCOUNTS_PER_HOUR": "3"})
    py, curl = clients(server)
    for _ in range(3):
        create_account(py)
    assert_rate_limited(curl.call("POST", "/v1/accounts", json={}), max_seconds=3600)
    assert_rate_limited(py.call("POST", "/v1/accounts", json={}), max_seconds=3600)
    # The rest of the server still works for the same address.
    assert py.call("GET", "/health").status == 200


def test_forwarded_for_is_ignored_without_trusted_proxies(start_server):
    server = start_server({"RATE_LIMIT_ACCOUNTS_PER_HOUR": "3"})
    py, _ = clients(server)
    for i in range(3):
        create_account(py, headers={"X-Forwarded-For": f"203.0.113.{i + 1}"})
    response = py.call("POST", "/v1/accounts", json={}, headers={"X-Forwarded-For": "198.51.100.9"})
    assert_rate_limited(response, max_seconds=3600)


@pytest.fixture
def behind_proxy(start_server):
    server = start_server({"RATE_LIMIT_ACCOUNTS_PER_HOUR": "3", "TRUSTED_PROXIES": "127.0.0.1"})
    return clients(server)


def test_trusted_proxy_gives_each_forwarded_address_its_own_budget(behind_proxy):
    py, curl = behind_proxy
    first = {"X-Forwarded-For": "203.0.113.1"}
    for _ in range(3):
        create_account(py, headers=first)
    assert_rate_limited(curl.call("POST", "/v1/accounts", json={}, headers=first), max_seconds=3600)
    second = {"X-Forwarded-For": "203.0.113.2"}
    for _ in range(3):
        create_account(curl, headers=second)
    assert_rate_limited(py.call("POST", "/v1/accounts", json={}, headers=second), max_seconds=3600)
    # The proxy's own address (no header) is a third client.
    create_account(py)


def test_rightmost_untrusted_forwarded_address_is_the_client(behind_proxy):
    py, _ = behind_proxy
    # A client can put anything on the left; only what the trusted proxy appended counts.
    for spoof in ["10.0.0.1", "10.0.0.2", "10.0.0.3"]:
        create_account(py, headers={"X-Forwarded-For": f"{spoof}, 198.51.100.7"})
    response = py.call("POST", "/v1/accounts", json={}, headers={"X-Forwarded-For": "10.0.0.4, 198.51.100.7"})
    assert_rate_limited(response, max_seconds=3600)
    # A trusted proxy in the chain is skipped: the client is still 198.51.100.7.
    response = py.call("POST", "/v1/accounts", json={}, headers={"X-Forwarded-For": "198.51.100.7, 127.0.0.1"})
    assert_rate_limited(response, max_seconds=3600)
    create_account(py, headers={"X-Forwarded-For": "198.51.100.8, 127.0.0.1"})


def test_ipv6_clients_share_a_budget_per_64(behind_proxy):
    py, _ = behind_proxy
    for host in ["2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:1:ffff:ffff:ffff:ffff"]:
        create_account(py, headers={"X-Forwarded-For": host})
    assert_rate_limited(py.call("POST", "/v1/accounts", json={}, headers={"X-Forwarded-For": "2001:db8:0:1::99"}),
                        max_seconds=3600)
    create_account(py, headers={"X-Forwarded-For": "2001:db8:0:2::1"})
