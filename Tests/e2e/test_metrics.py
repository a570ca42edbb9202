"""GET /metrics: the Prometheus text format behind METRICS_TOKEN, parsed with
prometheus_client's own parser; counters follow the traffic, paths with IDs add no series."""

import http.client
import json
import re
import socket
import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from api import NOT_FOUND, UNAUTHORIZED, assert_error, create_account, create_key, create_task
from apns_mock import APNsMock
from conftest import RELAXED_LIMITS
from http_clients import PythonClient
from server_process import binary_path, wait_until
from store_mode import ON_POSTGRES
from test_devices import PHONE, put_device

TOKEN = "e2e-metrics-token-7f3a9c1d5b"
# SQLite's WAL and its checkpoints: a server on PostgreSQL has neither, nor these series.
SQLITE_SERIES = {"relaydeck_store_wal_frames", "relaydeck_store_wal_bytes", "relaydeck_store_checkpoint_failures_total",
                 "relaydeck_store_checkpoint_duration_seconds_bucket", "relaydeck_store_checkpoint_duration_seconds_sum",
                 "relaydeck_store_checkpoint_duration_seconds_count"}


def start(start_server, **env):
    server = start_server({**RELAXED_LIMITS, "METRICS_TOKEN": TOKEN, **env})
    return server, PythonClient(server.host, server.port)


def scrape(client) -> tuple[str, dict]:
    """The text and its samples as {(name, sorted labels): value}, through the parser."""
    response = client.call("GET", "/metrics", token=TOKEN)
    assert response.status == 200, response
    assert response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8"
    text = response.body.decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            assert key not in samples, key
            samples[key] = sample.value
    return text, samples


def requests_total(samples, route, method, status) -> float:
    labels = tuple(sorted({"route": route, "method": method, "status": status}.items()))
    return samples.get(("relaydeck_http_requests_total", labels), 0)


def test_the_exposition_parses_and_counters_follow_the_traffic(start_server):
    server, client = start(start_server)
    _, samples = scrape(client)
    assert samples[("relaydeck_build_info", (("version", binary_version()),))] == 1
    assert samples[("relaydeck_store_up", ())] == 1
    assert samples[("relaydeck_open_connections", ())] >= 1
    assert samples[("relaydeck_event_streams", ())] == 0
    assert samples[("relaydeck_parked_calls", ())] == 0
    health_before = requests_total(samples, "/health", "GET", "200")

    for _ in range(7):
        assert client.call("GET", "/health").status == 200
    _, token = create_account(client)
    assert client.call("GET", "/nowhere").status == 404
    _, samples = scrape(client)
    assert requests_total(samples, "/health", "GET", "200") == health_before + 7
    assert requests_total(samples, "/v1/accounts", "POST", "201") == 1
    assert requests_total(samples, "(unmatched)", "GET", "404") == 1
    # The first scrape counted itself, the second not yet: a scrape moves its own counter by one.
    assert requests_total(samples, "/metrics", "GET", "200") == 1
    count = samples[("relaydeck_http_request_duration_seconds_count", (("group", "health"),))]
    inf = samples[("relaydeck_http_request_duration_seconds_bucket", (("group", "health"), ("le", "+Inf")))]
    assert count == inf == health_before + 7
    assert samples[("relaydeck_http_request_duration_seconds_sum", (("group", "health"),))] > 0
    # The account's commit went through the WAL (SQLite's); push is off, so the outbox is empty.
    if ON_POSTGRES:
        assert not {name for name, _ in samples} & SQLITE_SERIES
    else:
        assert samples[("relaydeck_store_wal_frames", ())] > 0
    assert samples[("relaydeck_push_outbox_jobs", ())] == 0
    assert samples[("relaydeck_push_outbox_oldest_age_seconds", ())] == 0
    # The loop counts its turns by CPU time: cumulative buckets up to +Inf, the longest within
    # the sum of all.
    turns = samples[("relaydeck_loop_turn_cpu_seconds_count", ())]
    assert turns > 0
    assert samples[("relaydeck_loop_turn_cpu_seconds_bucket", (("le", "+Inf"),))] == turns
    cumulative = [samples[("relaydeck_loop_turn_cpu_seconds_bucket", (("le", le),))]
                  for le in ("0.001", "0.004", "0.016", "0.064", "0.256", "1.024", "+Inf")]
    assert cumulative == sorted(cumulative)
    longest = samples[("relaydeck_loop_longest_turn_cpu_seconds", ())]
    assert 0 < longest <= samples[("relaydeck_loop_turn_cpu_seconds_sum", ())]

    # An open event stream is counted while it is open.
    stream = socket.create_connection((server.host, server.port), timeout=10)
    try:
        stream.sendall(f"GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        assert stream.recv(4096).startswith(b"HTTP/1.1 200")
        wait_until(lambda: scrape(client)[1][("relaydeck_event_streams", ())] == 1, timeout=5, message="stream counted")
        assert scrape(client)[1][("relaydeck_open_connections", ())] >= 2
    finally:
        stream.close()
    wait_until(lambda: scrape(client)[1][("relaydeck_event_streams", ())] == 0, timeout=5, message="stream gone")


def binary_version() -> str:
    done = subprocess.run([str(binary_path()), "version"], capture_output=True, text=True, timeout=10)
    return done.stdout.split()[-1]


def test_ten_thousand_task_ids_add_no_series_and_no_id_shows(start_server):
    server, client = start(start_server)
    _, token = create_account(client)
    _, secret = create_key(client, token)
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        # Touch every series the loop below touches, then count the series.
        for path in ["/v1/tasks/tsk_warmup", "/v1/nothing/warmup"]:
            conn.request("GET", path, headers={"X-API-Key": secret})
            conn.getresponse().read()
        scrape(client)  # and the scrape's own series
        text, before = scrape(client)
        for number in range(10_000):
            path = f"/v1/tasks/tsk_{number:022d}" if number % 2 else f"/v1/nothing/{number}"
            conn.request("GET", path, headers={"X-API-Key": secret})
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 404, (path, answer.status)
    finally:
        conn.close()
    text, after = scrape(client)
    assert set(after) == set(before), set(after) ^ set(before)
    assert requests_total(after, "/v1/tasks/{task_id}", "GET", "404") == requests_total(before, "/v1/tasks/{task_id}", "GET", "404") + 5_000
    assert requests_total(after, "(unmatched)", "GET", "404") == requests_total(before, "(unmatched)", "GET", "404") + 5_000
    for secret_prefix in ["tsk_", "key_", "mck_", "mca_"]:
        assert secret_prefix not in text, secret_prefix
    assert TOKEN not in server.log()


def test_a_missing_or_wrong_token_is_401(start_server):
    _, client = start(start_server)
    _, account_token = create_account(client)
    for headers in [{}, {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": f"Bearer {TOKEN[:-1]}"},
                    {"Authorization": f"Bearer {account_token}"}, {"Authorization": f"Basic {TOKEN}"}]:
        response = client.call("GET", "/metrics", headers=headers)
        assert_error(response, 401, UNAUTHORIZED)


def test_without_metrics_token_there_is_no_metrics(start_server):
    server = start_server(RELAXED_LIMITS)
    client = PythonClient(server.host, server.port)
    assert_error(client.call("GET", "/metrics", token=TOKEN), 404, NOT_FOUND)


def metrics_address(server) -> tuple[str, int]:
    found = wait_until(lambda: re.search(r"\binfo serving metrics address=(\S+)", server.log()), timeout=10,
                       message="the metrics address in the log")
    host, port = found.group(1).rsplit(":", 1)
    return host.strip("[]"), int(port)


def test_metrics_listen_serves_only_metrics_without_a_token_and_is_not_counted(start_server):
    server = start_server({**RELAXED_LIMITS, "METRICS_LISTEN": "127.0.0.1:0"})
    main = PythonClient(server.host, server.port)
    metrics = PythonClient(*metrics_address(server))
    assert (metrics.host, metrics.port) != (server.host, server.port)
    # The main port has no /metrics without METRICS_TOKEN.
    assert_error(main.call("GET", "/metrics"), 404, NOT_FOUND)
    assert main.call("GET", "/health").status == 200
    for _ in range(3):
        response = metrics.call("GET", "/metrics")
        assert response.status == 200, response
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(response.body.decode()) for s in family.samples}
    assert requests_total(samples, "/health", "GET", "200") == 1
    # The main port's 404 only: the metrics port's scrapes are not counted.
    assert requests_total(samples, "(unmatched)", "GET", "404") == 1
    assert not any(name == "relaydeck_http_requests_total" and dict(labels).get("route") == "/metrics"
                   for name, labels in samples)
    # Only /metrics, and only GET (and HEAD).
    assert_error(metrics.call("GET", "/health"), 404, NOT_FOUND)
    assert metrics.call("POST", "/metrics", json={}).status == 405
    head = metrics.call("HEAD", "/metrics")
    assert head.status == 200 and head.body == b""


def test_metrics_listen_asks_for_the_token_when_one_is_set(start_server):
    server = start_server({**RELAXED_LIMITS, "METRICS_LISTEN": "127.0.0.1:0", "METRICS_TOKEN": TOKEN})
    metrics = PythonClient(*metrics_address(server))
    assert_error(metrics.call("GET", "/metrics"), 401, UNAUTHORIZED)
    assert_error(metrics.call("GET", "/metrics", token=TOKEN + "x"), 401, UNAUTHORIZED)
    assert metrics.call("GET", "/metrics", token=TOKEN).status == 200
    assert PythonClient(server.host, server.port).call("GET", "/metrics", token=TOKEN).status == 200


# Pushes, the store and the purge (issue 23), and the dashboard that reads them.

DASHBOARD = Path(__file__).resolve().parents[2] / "packaging" / "grafana" / "relaydeck.json"
APNS = "a1" * 32
WIDGET = "c3" * 32


@pytest.fixture
def apns():
    server = APNsMock().start()
    yield server
    server.stop()


def start_with_push(start_server, mock):
    return start(start_server, APNS_TEAM_ID=mock.team_id, APNS_KEY_ID=mock.key_id,
                 APNS_PRIVATE_KEY_FILE=mock.private_key_file, APNS_BUNDLE_ID="com.example.relaydeck",
                 APNS_PRODUCTION_URL=mock.url, APNS_SANDBOX_URL=mock.url, APNS_CA_FILE=mock.ca_file)


def pushes(samples) -> dict:
    """relaydeck_pushes_total as {(service, kind, outcome): value}; the labels are exactly those three."""
    found = {}
    for (name, labels), value in samples.items():
        if name == "relaydeck_pushes_total":
            labels = dict(labels)
            assert set(labels) == {"service", "kind", "outcome"}, labels
            found[(labels["service"], labels["kind"], labels["outcome"])] = value
    return found


def test_pushes_are_counted_by_kind_and_outcome_and_a_410_by_its_reason(start_server, apns):
    server, client = start_with_push(start_server, apns)
    assert pushes(scrape(client)[1]) == {}
    _, token = create_account(client)
    _, secret = create_key(client, token, "Claude Code")
    assert put_device(client, token, PHONE, apns_token=APNS, widget_push_token=WIDGET).status == 200
    apns.fail_next(410, token=WIDGET, count=None)
    create_task(client, secret=secret, title="Counted")
    apns.wait_until(lambda m: len(m.requests) >= 2)
    wait_until(lambda: len(pushes(scrape(client)[1])) == 2, timeout=10, message="both pushes counted")
    text, samples = scrape(client)
    assert pushes(samples) == {("apns", "alert", "sent"): 1, ("apns", "widgets", "Unregistered"): 1}
    # The same again moves the same two series and adds none.
    create_task(client, secret=secret, title="Counted again")
    wait_until(lambda: pushes(scrape(client)[1]).get(("apns", "alert", "sent")) == 2, timeout=10,
               message="the second alert counted")
    assert set(pushes(scrape(client)[1])) == {("apns", "alert", "sent"), ("apns", "widgets", "Unregistered")}
    for secret_text in [APNS, WIDGET, PHONE, "tsk_", "key_"]:
        assert secret_text not in text, secret_text


def test_an_unknown_reason_is_other_and_no_answer_is_unreachable(start_server, apns):
    server, client = start_with_push(start_server, apns)
    _, token = create_account(client)
    _, secret = create_key(client, token)
    assert put_device(client, token, PHONE, apns_token=APNS).status == 200
    apns.fail_next(400, "NotAReasonAPNsDocuments", token=APNS, count=None)
    create_task(client, secret=secret, title="Odd reason")
    wait_until(lambda: pushes(scrape(client)[1]) == {("apns", "alert", "other"): 1}, timeout=10,
               message="the refusal counted as other")
    assert "NotAReasonAPNsDocuments" not in scrape(client)[0]


def histogram_count(samples, name, **labels) -> float:
    return samples[(name + "_count", tuple(sorted(labels.items())))]


def test_the_wal_the_checkpoints_and_the_purge_backlog_are_reported(start_server):
    server, client = start(start_server)
    _, token = create_account(client)
    key, secret = create_key(client, token)
    _, samples = scrape(client)
    for name in ["relaydeck_purge_pending_keys", "relaydeck_purge_pending_accounts", "relaydeck_purge_pending_text_bytes",
                 "relaydeck_purge_oldest_age_seconds"]:
        assert samples[(name, ())] == 0, name
    if not ON_POSTGRES:
        assert_the_wal_and_its_checkpoints_are_reported(server, client, secret)

    # A deleted key waits for the purge until its tasks are gone, then the backlog is empty again.
    assert client.call("DELETE", f"/v1/keys/{key['id']}", token=token).status == 204
    wait_until(lambda: scrape(client)[1][("relaydeck_purge_pending_keys", ())] == 0, timeout=30,
               message="the purge finished")
    _, samples = scrape(client)
    assert samples[("relaydeck_purge_pending_text_bytes", ())] == 0
    assert samples[("relaydeck_purge_oldest_age_seconds", ())] == 0


def assert_the_wal_and_its_checkpoints_are_reported(server, client, secret):
    _, samples = scrape(client)
    assert samples[("relaydeck_store_wal_bytes", ())] > 0
    for thread in ["checkpointer", "loop"]:
        assert samples[("relaydeck_store_checkpoint_failures_total", (("thread", thread),))] == 0
        count = histogram_count(samples, "relaydeck_store_checkpoint_duration_seconds", thread=thread)
        assert samples[("relaydeck_store_checkpoint_duration_seconds_bucket", (("le", "+Inf"), ("thread", thread)))] == count

    # Commits past 1,000 WAL frames ask the checkpoint thread: its checkpoint is timed.
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        for number in range(1_000):  # an API key keeps 1,000 open tasks at most
            if number % 100 == 0 and histogram_count(scrape(client)[1], "relaydeck_store_checkpoint_duration_seconds",
                                                       thread="checkpointer") > 0:
                break
            conn.request("POST", "/v1/tasks", body=json.dumps({"title": f"Task {number}", "description": "x" * 500}),
                         headers={"X-API-Key": secret, "Content-Type": "application/json"})
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 201, answer.status
    finally:
        conn.close()
    wait_until(lambda: histogram_count(scrape(client)[1], "relaydeck_store_checkpoint_duration_seconds", thread="checkpointer") > 0,
               timeout=10, message="a checkpoint of the thread")
    _, samples = scrape(client)
    assert samples[("relaydeck_store_checkpoint_duration_seconds_sum", (("thread", "checkpointer"),))] > 0


def exposed_series(text: str) -> set[str]:
    """Every series name the exposition can hold: each family's name, with _bucket, _sum and
    _count for a histogram (from the # TYPE lines, so a family without samples counts too)."""
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE):
        names.add(name)
        if kind == "histogram":
            names.update({name + "_bucket", name + "_sum", name + "_count"})
    return names


def dashboard_series() -> set[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    exprs += [variable["query"]["query"] for variable in dashboard["templating"]["list"] if variable["type"] == "query"]
    assert exprs
    return {name for expr in exprs for name in re.findall(r"\b(relaydeck_[a-z0-9_]+)", expr)}


def test_the_grafana_dashboard_reads_only_series_the_server_exposes(start_server, apns):
    # With push on, so every family is there; each is written even before its first sample.
    server, client = start_with_push(start_server, apns)
    create_account(client)
    text, _ = scrape(client)
    used = dashboard_series()
    # On PostgreSQL the SQLite panels have no series to show, and only those.
    missing = used - exposed_series(text) - (SQLITE_SERIES if ON_POSTGRES else set())
    assert not missing, f"the dashboard reads series the server does not expose: {sorted(missing)}"
    # It shows each part of the exposition: no family is left out of it.
    families = set(re.findall(r"^# TYPE (\S+) ", text, re.MULTILINE))
    unused = {family for family in families if not any(name.startswith(family) for name in used)}
    assert not unused, f"series the dashboard does not show: {sorted(unused)}"
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["__inputs"][0]["pluginId"] == "prometheus"
    sources = {json.dumps(panel.get("datasource")) for panel in dashboard["panels"] if panel["type"] != "row"}
    assert sources == {json.dumps({"type": "prometheus", "uid": "${datasource}"})}
