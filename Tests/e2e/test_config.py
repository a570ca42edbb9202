"""The command line and the environment: `version`, `check-config`, and a bad value stopping
the start with one line that names the variable and never shows a secret."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from http_clients import PythonClient
from server_process import PACKAGE_ROOT, base_environment, binary_path

ENV_FILE = PACKAGE_ROOT / "etc" / "relaydeck.env"

# The variables of the config loader (Sources/relaydeckd/Config), as the README lists them.
VARIABLES = [
    "LISTEN", "DATABASE_PATH", "DURABILITY", "DATABASE_URL", "DATABASE_URL_FILE", "DATABASE_CONNECTIONS", "PUBLIC_URL", "ACCOUNT_CREATION", "ACCOUNT_STORAGE_LIMIT",
    "RATE_LIMIT_REQUESTS_PER_MINUTE", "RATE_LIMIT_ACCOUNTS_PER_HOUR", "RATE_LIMIT_CHALLENGES_PER_HOUR",
    "TRUSTED_PROXIES", "WEB_PUSH_ALLOW_PRIVATE_HOSTS", "WEB_PUSH_SUBJECT", "WEB_PUSH_CA_FILE", "OAUTH_ALLOW_PRIVATE_HOSTS", "OAUTH_CA_FILE", "APP_TOTP_SECRET", "APP_TOTP_SECRET_FILE", "APP_ATTEST_APP_IDS",
    "APP_ATTEST_ENVIRONMENT", "APP_ATTEST_ROOT_CA_FILE", "APNS_TEAM_ID", "APNS_KEY_ID",
    "APNS_PRIVATE_KEY", "APNS_PRIVATE_KEY_FILE", "APNS_BUNDLE_ID", "APNS_WATCH_BUNDLE_ID",
    "APNS_PRODUCTION_URL", "APNS_SANDBOX_URL", "APNS_CA_FILE", "TLS_CERT_FILE", "TLS_KEY_FILE",
    "METRICS_TOKEN", "METRICS_TOKEN_FILE", "METRICS_LISTEN", "LOG_LEVEL", "LOG_FORMAT", "MAX_CONNECTIONS", "HTTP_HEADER_TIMEOUT", "HTTP_IDLE_TIMEOUT",
    "SHUTDOWN_TIMEOUT", "PUSH_LEASE_SECONDS",
]

# A valid base32 TOTP secret of 20 bytes: it must never be printed.
TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def run(args, env=None, tmp_path=None, timeout=20):
    environment = base_environment(Path(tmp_path or "/tmp"), env)
    return subprocess.run([str(binary_path())] + args, env=environment, cwd=tmp_path, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def assert_one_error_line(stderr: str, variable: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and stderr.endswith("\n"), stderr
    assert lines[0].startswith(f"relaydeckd: {variable}: "), lines[0]
    assert len(lines[0]) > len(f"relaydeckd: {variable}: "), lines[0]
    return lines[0]


def test_version_prints_name_and_version(tmp_path):
    done = run(["version"], tmp_path=tmp_path)
    assert done.returncode == 0, done
    assert re.fullmatch(r"relaydeckd \S+\n", done.stdout), done.stdout


def test_check_config_ok_prints_a_summary(tmp_path):
    done = run(["check-config"], tmp_path=tmp_path)
    assert done.returncode == 0, done
    lines = done.stdout.splitlines()
    assert lines[0] == "configuration ok", done.stdout
    assert "RATE_LIMIT_REQUESTS_PER_MINUTE" in done.stdout
    assert "600" in done.stdout


def test_check_config_shows_secrets_only_as_set(tmp_path):
    done = run(["check-config"], {"APP_TOTP_SECRET": TOTP_SECRET}, tmp_path=tmp_path)
    assert done.returncode == 0, done
    assert "(set)" in done.stdout
    assert TOTP_SECRET not in done.stdout + done.stderr


@pytest.mark.parametrize("variable, value", [
    ("RATE_LIMIT_REQUESTS_PER_MINUTE", "abc"),
    ("RATE_LIMIT_REQUESTS_PER_MINUTE", "0"),
    ("RATE_LIMIT_ACCOUNTS_PER_HOUR", "-3"),
    ("RATE_LIMIT_CHALLENGES_PER_HOUR", "1e3"),
    ("MAX_CONNECTIONS", "lots"),
    ("HTTP_HEADER_TIMEOUT", "10s"),
    ("HTTP_IDLE_TIMEOUT", "0.0001"),
    ("SHUTDOWN_TIMEOUT", "-1"),
    ("PUSH_LEASE_SECONDS", "0"),
    ("LISTEN", "somewhere"),
    ("LISTEN", "127.0.0.1:70000"),
    ("LISTEN", "unix:relative.sock"),
    ("LOG_LEVEL", "verbose"),
    ("LOG_FORMAT", "xml"),
    ("DURABILITY", "off"),
    ("DATABASE_SYNCHRONOUS", "OFF"),
    ("ACCOUNT_CREATION", "invite-only"),
    ("ACCOUNT_STORAGE_LIMIT", "256MB"),
    ("ACCOUNT_STORAGE_LIMIT", "100"),
    ("TRUSTED_PROXIES", "10.0.0.0/8, proxy.example"),
    ("PUBLIC_URL", "ftp://example.com"),
    ("APP_ATTEST_APP_IDS", "not-an-app-id"),
    ("APP_ATTEST_ENVIRONMENT", "production"),
    ("METRICS_TOKEN", "fifteen-chars-x"),
    ("METRICS_TOKEN", "has a space in it somewhere"),
    ("METRICS_LISTEN", "somewhere"),
])
def test_check_config_names_the_bad_variable(tmp_path, variable, value):
    done = run(["check-config"], {variable: value}, tmp_path=tmp_path)
    assert done.returncode == 1, done
    assert done.stdout == "", done.stdout
    assert_one_error_line(done.stderr, variable)


def test_durability_and_its_older_name_agree_or_the_start_stops(tmp_path):
    # An install configured with DATABASE_SYNCHRONOUS keeps its choice; both names set to
    # different things is a mistake the start names.
    older = run(["check-config"], {"DATABASE_SYNCHRONOUS": "FULL"}, tmp_path=tmp_path)
    assert older.returncode == 0, older
    assert "\nDURABILITY=full\n" in older.stdout, older.stdout
    both = run(["check-config"], {"DATABASE_SYNCHRONOUS": "full", "DURABILITY": "full"}, tmp_path=tmp_path)
    assert both.returncode == 0, both
    assert both.stdout == older.stdout
    refused = run(["check-config"], {"DATABASE_SYNCHRONOUS": "FULL", "DURABILITY": "normal"}, tmp_path=tmp_path)
    assert refused.returncode == 1, refused
    assert assert_one_error_line(refused.stderr, "DURABILITY") == (
        "relaydeckd: DURABILITY: is normal, but DATABASE_SYNCHRONOUS, its older name, says FULL; set one of them")


@pytest.mark.parametrize("env, variable", [
    ({"TLS_CERT_FILE": "/nonexistent/cert.pem"}, "TLS_KEY_FILE"),
    ({"TLS_CERT_FILE": "/nonexistent/cert.pem", "TLS_KEY_FILE": "/nonexistent/key.pem"}, "TLS_CERT_FILE"),
    ({"APNS_TEAM_ID": "ABCDE12345"}, "APNS_KEY_ID"),
])
def test_check_config_names_the_variable_of_a_missing_partner(tmp_path, env, variable):
    done = run(["check-config"], env, tmp_path=tmp_path)
    assert done.returncode == 1, done
    assert_one_error_line(done.stderr, variable)


@pytest.mark.parametrize("secret", ["not*base32", "JBSWY3DPEHPK3PXP"])
def test_bad_totp_secret_is_named_but_never_printed(tmp_path, secret):
    done = run(["check-config"], {"APP_TOTP_SECRET": secret}, tmp_path=tmp_path)
    assert done.returncode == 1, done
    line = assert_one_error_line(done.stderr, "APP_TOTP_SECRET")
    assert secret not in line and secret not in done.stdout


def test_bad_apns_key_is_named_but_never_printed(tmp_path):
    key = "this-is-a-secret-key-value-9f8e7d"
    env = {"APNS_TEAM_ID": "ABCDE12345", "APNS_KEY_ID": "KEY1234567", "APNS_PRIVATE_KEY": key,
           "APNS_BUNDLE_ID": "com.example.app"}
    done = run(["check-config"], env, tmp_path=tmp_path)
    assert done.returncode == 1, done
    line = assert_one_error_line(done.stderr, "APNS_PRIVATE_KEY")
    assert key not in line


def test_serving_with_a_bad_value_exits_1_before_listening(tmp_path):
    done = run([], {"RATE_LIMIT_REQUESTS_PER_MINUTE": "abc"}, tmp_path=tmp_path)
    assert done.returncode == 1, done
    assert_one_error_line(done.stderr, "RATE_LIMIT_REQUESTS_PER_MINUTE")
    assert "listening" not in done.stdout + done.stderr


def test_serving_with_a_bad_secret_never_prints_it(tmp_path):
    done = run([], {"APP_TOTP_SECRET": "not*base32"}, tmp_path=tmp_path)
    assert done.returncode == 1, done
    line = assert_one_error_line(done.stderr, "APP_TOTP_SECRET")
    assert "not*base32" not in line
    assert done.stdout == ""


DATABASE_PASSWORD = "pg-pw-7c1d9e"
DATABASE_URL = f"postgres://relaydeck:{DATABASE_PASSWORD}@db.internal:5433/relaydeck?sslmode=require"


def test_check_config_shows_the_database_url_without_its_password(tmp_path):
    done = run(["check-config"], {"DATABASE_URL": DATABASE_URL}, tmp_path=tmp_path)
    assert done.returncode == 0, done
    assert "DATABASE_URL=postgres://relaydeck:(hidden)@db.internal:5433/relaydeck?sslmode=require\n" in done.stdout
    assert DATABASE_PASSWORD not in done.stdout + done.stderr


def test_a_bad_database_url_is_named_but_its_password_never_printed(tmp_path):
    done = run(["check-config"], {"DATABASE_URL": f"postgres://relaydeck:{DATABASE_PASSWORD}@db:port/app"}, tmp_path=tmp_path)
    assert done.returncode == 1, done
    line = assert_one_error_line(done.stderr, "DATABASE_URL")
    assert DATABASE_PASSWORD not in line + done.stdout


@pytest.mark.parametrize("args", [[], ["account", "create"], ["backup", "copy.db"]])
def test_serving_or_using_the_store_with_a_database_that_cannot_be_reached_fails_to_start(tmp_path, args):
    # With DATABASE_URL set the store is that database: one that cannot be reached stops the
    # start with one line naming it (password hidden), and nothing touches SQLite instead.
    done = run(args, {"DATABASE_URL": DATABASE_URL}, tmp_path=tmp_path)
    assert done.returncode == 1, done
    line = assert_one_error_line(done.stderr, "DATABASE_URL")
    assert "cannot connect to postgres://relaydeck:(hidden)@db.internal:5433/relaydeck" in line
    assert DATABASE_PASSWORD not in line + done.stdout
    assert "listening" not in done.stdout + done.stderr
    assert not (tmp_path / "relaydeck.db").exists()


def test_unknown_subcommand_prints_usage_and_exits_2(tmp_path):
    done = run(["frobnicate"], tmp_path=tmp_path)
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr.strip() != ""
    assert "check-config" in done.stderr and "version" in done.stderr, done.stderr


def test_json_log_format(start_server):
    server = start_server({"LOG_FORMAT": "json"})
    assert PythonClient(server.host, server.port).call("GET", "/health").status == 200
    server.stop()
    records = [json.loads(line) for line in server.log_lines()]
    listening = [r for r in records if r.get("msg") == "listening"]
    assert len(listening) == 1 and listening[0]["level"] == "info", records
    assert listening[0]["address"] == server.address
    assert all({"time", "level", "msg"} <= set(r) for r in records), records


def test_env_file_documents_every_variable():
    text = ENV_FILE.read_text()
    documented = re.findall(r"^#([A-Z_]+)=", text, re.MULTILINE)
    assert sorted(set(documented)) == sorted(VARIABLES)
    # Nothing is switched on by the file as shipped: every assignment is commented out.
    assert not re.search(r"^[A-Z_]+=", text, re.MULTILINE)


def test_env_file_defaults_are_the_real_defaults(tmp_path):
    """Uncommenting the documented defaults changes nothing check-config reports."""
    defaults = {}
    for name, value in re.findall(r"^#([A-Z_]+)=(.*)$", ENV_FILE.read_text(), re.MULTILINE):
        if name in {"LISTEN", "DATABASE_PATH", "DURABILITY", "ACCOUNT_CREATION", "ACCOUNT_STORAGE_LIMIT",
                    "RATE_LIMIT_REQUESTS_PER_MINUTE",
                    "RATE_LIMIT_ACCOUNTS_PER_HOUR", "RATE_LIMIT_CHALLENGES_PER_HOUR", "LOG_LEVEL",
                    "LOG_FORMAT", "MAX_CONNECTIONS", "HTTP_HEADER_TIMEOUT", "HTTP_IDLE_TIMEOUT",
                    "SHUTDOWN_TIMEOUT", "PUSH_LEASE_SECONDS"}:
            defaults[name] = value
    assert len(defaults) == 15, defaults
    plain = run(["check-config"], {"LISTEN": None, "DATABASE_PATH": None, "LOG_LEVEL": None}, tmp_path=tmp_path)
    spelled = run(["check-config"], defaults, tmp_path=tmp_path)
    assert plain.returncode == spelled.returncode == 0, (plain, spelled)
    assert spelled.stdout == plain.stdout


def test_env_file_as_shipped_passes_check_config(tmp_path):
    environment = base_environment(tmp_path)
    script = f'set -a; . "{ENV_FILE}"; set +a; exec "{binary_path()}" check-config'
    done = subprocess.run(["bash", "-c", script], env=environment, cwd=tmp_path, capture_output=True, text=True,
                          timeout=20)
    assert done.returncode == 0, done
    assert done.stdout.startswith("configuration ok\n")


def test_listen_on_ipv6_loopback(start_server):
    try:
        server = start_server({"LISTEN": "[::1]:0"})
    except AssertionError as error:
        if any(text in str(error) for text in ("Address family not supported", "EAFNOSUPPORT",
                                                "Cannot assign requested address", "EADDRNOTAVAIL")):
            pytest.skip("no IPv6 on this machine")
        raise
    assert server.address.startswith("[::1]:")
    assert PythonClient("::1", server.port).call("GET", "/health").status == 200


def test_listen_on_a_unix_socket(start_server, tmp_path):
    path = tmp_path / "http.sock"
    server = start_server({"LISTEN": f"unix:{path}"})
    assert str(path) in server.address
    done = subprocess.run(["curl", "-sS", "--unix-socket", str(path), "http://localhost/health"],
                          capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done
    assert json.loads(done.stdout) == {"status": "ok", "store": "ok"}
