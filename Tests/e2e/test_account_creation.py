"""ACCOUNT_CREATION=open|closed: closed, POST /v1/accounts and POST /v1/attest/challenge
answer 403 in the contract's shape and the operator makes accounts with `relaydeckd account
create`; open (the default) is as before. check-config and the start log say which."""

import json
import subprocess

import pytest

from api import assert_error, create_account
from http_clients import CurlClient, PythonClient
from server_process import base_environment, binary_path, record_secrets

CLOSED = ("forbidden", "Accounts on this server are made by its operator (relaydeckd account create), not on request.")


def run(workdir, *arguments, env=None):
    done = subprocess.run([str(binary_path()), *arguments], env=base_environment(workdir, env),
                          capture_output=True, text=True, timeout=30)
    record_secrets(done.stdout)
    return done


def test_closed_refuses_strangers_and_the_operator_still_makes_accounts(start_server, tmp_path):
    env = {"ACCOUNT_CREATION": "closed"}
    server = start_server(env)
    assert "accounts creation=closed storage_limit=256MiB" in server.log()
    for client in (PythonClient(server.host, server.port), CurlClient(server.host, server.port)):
        for body in ({}, {"attestation": {"key_id": "x"}}):
            assert_error(client.call("POST", "/v1/accounts", json=body), 403, CLOSED)
        assert_error(client.call("POST", "/v1/attest/challenge"), 403, CLOSED)
    done = run(tmp_path, "account", "create", env=env)
    assert done.returncode == 0, done
    made = json.loads(done.stdout)
    py = PythonClient(server.host, server.port)
    assert py.call("GET", "/v1/account", token=made["token"]).json == made["account"]
    assert py.call("POST", "/v1/keys", json={"label": "Claude Code"}, token=made["token"]).status == 201
    checked = run(tmp_path, "check-config", env=env)
    assert checked.returncode == 0 and "\nACCOUNT_CREATION=closed\n" in checked.stdout, checked


@pytest.mark.parametrize("env", [{}, {"ACCOUNT_CREATION": "open"}])
def test_open_makes_accounts_on_request(start_server, tmp_path, env):
    server = start_server(env)
    assert "accounts creation=open" in server.log()
    py = PythonClient(server.host, server.port)
    create_account(py)
    assert py.call("POST", "/v1/attest/challenge").status == 200
    checked = run(tmp_path, "check-config", env=env)
    assert checked.returncode == 0 and "\nACCOUNT_CREATION=open\n" in checked.stdout, checked


def test_a_value_that_is_neither_stops_the_start(tmp_path):
    done = run(tmp_path, env={"ACCOUNT_CREATION": "invite"})
    assert done.returncode == 1, done
    assert done.stderr == 'relaydeckd: ACCOUNT_CREATION: expected open or closed (got "invite")\n', done.stderr
