"""The background jobs of two relaydeckd on one PostgreSQL database (issue 25, README "Several
nodes"): each runs once across the nodes, and a node killed with `kill -9` has its work taken
over by the other. A question expires once (both nodes' sweeps, and reads on both at its
expiry); a purge runs once (keys deleted on both nodes at once); the push outbox sends each
push once (changes written alternately on both, one APNs mock); node A killed mid-wait with
pushes claimed (its APNs mock holds every answer), the waiting call retried on B, and B
sending A's pushes once their lease ends with no request of its own; the database restarted
under writes through both nodes. The module has a cluster of its own (two_nodes.py), in
either mode of the suite."""

import threading
import time
from collections import Counter

import pytest

from api import STORE_UNAVAILABLE, all_tasks, assert_error, create_account, create_key
from apns_mock import APNsMock
from http_clients import PythonClient
from postgres_cluster import binaries
from server_process import wait_until
from test_devices import PHONE, put_device
from two_nodes import EventLog, nodes, postgres  # noqa: F401 (the fixtures)

pytestmark = [pytest.mark.skipif(binaries() is None, reason="needs Debian's postgresql package (make test-deps)"),
              pytest.mark.slow]

BUNDLE = "com.example.relaydeck"
APNS = "a1" * 32
METRICS_TOKEN = "e2e-metrics-token-7f3a9c1d5b"
RELAXED = {"RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000", "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
           "METRICS_TOKEN": METRICS_TOKEN}
# The contract's shortest question (`expires_in`, rest-api.md#ask-a-question).
SHORTEST_QUESTION = 60
# A lease short enough for a test (PUSH_LEASE_SECONDS): the node left alive looks at the
# outbox at least this often, and sends what the dead one claimed once its lease ends.
LEASE = 4


def push_env(mock) -> dict:
    return {"APNS_TEAM_ID": mock.team_id, "APNS_KEY_ID": mock.key_id, "APNS_PRIVATE_KEY_FILE": mock.private_key_file,
            "APNS_BUNDLE_ID": BUNDLE, "APNS_PRODUCTION_URL": mock.url, "APNS_SANDBOX_URL": mock.url,
            "APNS_CA_FILE": mock.ca_file}


@pytest.fixture
def mocks():
    """APNs mocks made by the test (`mocks(**options)`), stopped after it."""
    made = []

    def make(**options):
        mock = APNsMock(**options).start()
        made.append(mock)
        return mock
    yield make
    for mock in made:
        mock.stop()


def metric(client, name: str) -> float:
    response = client.call("GET", "/metrics", token=METRICS_TOKEN)
    assert response.status == 200, response
    for line in response.body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


def pushes(mock) -> Counter:
    """What the mock received, as (event, subject, alert subtitle or None) counted."""
    seen = Counter()
    for request in mock.requests:
        body = request.json
        subject = body.get("task_id") or body.get("question_id")
        seen[(body["event"], subject, body["aps"].get("alert", {}).get("subtitle"))] += 1
    return seen


def of(events, name: str, subject: str, key: str) -> list[dict]:
    return [data for event, data in events if event == name and data[key]["id"] == subject]


def test_a_question_expires_once_on_both_streams_for_the_waiting_call_and_in_one_push(nodes, mocks):
    mock = mocks()
    (server_a, a), (server_b, b) = nodes({**RELAXED, **push_env(mock)}, timeout=70)
    account, token = create_account(a)
    key, secret = create_key(a, token)
    assert put_device(a, token, PHONE, apns_token=APNS).status == 200
    streams = [EventLog(server_a, token, account["id"]), EventLog(server_b, token, account["id"])]
    asked = a.call("POST", "/v1/questions", json={"prompt": "Ship it?", "expires_in": SHORTEST_QUESTION}, token=secret)
    assert asked.status == 201, asked
    question = asked.json
    expires_at = question["expires_at"]
    waited = []

    def wait_on_a():
        # A wait lasts 50 s at most: it starts so that the expiry comes within it.
        time.sleep(max(0.0, expires_at - 45 - time.time()))
        waited.append(a.call("GET", f"/v1/questions/{question['id']}?wait=50", token=secret))

    waiter = threading.Thread(target=wait_on_a)
    waiter.start()
    # Around the expiry each node expires it from its sweep, from the waiting call's timer
    # (A) and from each read: reads on both nodes, one after the other from just before it
    # to just after, race the other node's expiring write.
    time.sleep(max(0.0, expires_at - 0.05 - time.time()))
    reads = {}

    def read(name, client):
        statuses = reads.setdefault(name, [])
        while time.time() < expires_at + 0.1:
            answer = client.call("GET", f"/v1/questions/{question['id']}", token=secret)
            statuses.append(answer.json["status"] if answer.status == 200 else answer.status)

    readers = [threading.Thread(target=read, args=(name, client)) for name, client in
               (("a1", a), ("b1", b), ("a2", a), ("b2", b))]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(30)
    waiter.join(60)
    for name, statuses in reads.items():
        # Pending until it expired, then expired: never pending again.
        assert set(statuses) <= {"pending", "expired"} and statuses[-1] == "expired", (name, statuses)
        assert statuses == sorted(statuses, key=lambda status: status == "expired"), (name, statuses)
    [response] = waited
    assert response.status == 200 and response.json["status"] == "expired", response

    def settled():
        return all(of(stream.received(), "question.updated", question["id"], "question") for stream in streams)

    wait_until(settled, timeout=10, message="the expiry on both streams")
    # Whatever else would come (a second expiry, a second push) comes within this.
    time.sleep(2)
    for stream in streams:
        events = stream.received()
        assert len(of(events, "question.created", question["id"], "question")) == 1, events
        [expired] = of(events, "question.updated", question["id"], "question")
        assert expired["question"]["status"] == "expired"
        stream.close()
    assert pushes(mock) == Counter({("question.created", question["id"], "Question"): 1,
                                    ("question.updated", question["id"], None): 1}), mock.requests
    assert [request.status for request in mock.requests] == [200, 200]


def test_a_purge_runs_once_with_keys_deleted_on_both_nodes_at_once(nodes):
    (server_a, a), (server_b, b) = nodes(RELAXED)
    account, token = create_account(a)
    deleted = [create_key(a, token, "Deleted on A"), create_key(b, token, "Deleted on B")]
    kept_key, kept_secret = create_key(a, token, "Kept")
    # More than the purge's batches of 200 rows: several steps on each node.
    for n in range(450):
        for client, (_, secret) in zip((a, b), deleted):
            assert client.call("POST", "/v1/tasks", json={"title": f"Task {n}"}, token=secret).status == 201
    for n in range(3):
        for _, secret in deleted:
            assert a.call("POST", "/v1/questions", json={"prompt": f"Question {n}?"}, token=secret).status == 201
    kept = [a.call("POST", "/v1/tasks", json={"title": f"Kept {n}"}, token=kept_secret).json for n in range(5)]
    streams = [EventLog(server_a, token, account["id"]), EventLog(server_b, token, account["id"])]
    ids = [key["id"] for key, _ in deleted]
    answers = []
    threads = [threading.Thread(target=lambda client=client, key_id=key_id: answers.append(
        client.call("DELETE", f"/v1/keys/{key_id}", token=token))) for client, key_id in zip((a, b), ids)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [answer.status for answer in answers] == [204, 204], answers
    for client in (a, b):
        wait_until(lambda client=client: metric(client, "relaydeck_purge_pending_keys") == 0, timeout=30,
                   message="no key left to purge")
    assert nodes.psql("SELECT count(*) FROM keys WHERE deleted_at IS NOT NULL") == ["0"]
    assert nodes.psql(f"SELECT count(*) FROM tasks WHERE key_id IN ('{ids[0]}', '{ids[1]}')") == ["0"]
    assert nodes.psql(f"SELECT count(*) FROM questions WHERE key_id IN ('{ids[0]}', '{ids[1]}')") == ["0"]
    assert nodes.psql("SELECT key_id, count(*) FROM tasks GROUP BY key_id") == [f"{kept_key['id']}|5"]
    for stream in streams:
        wait_until(lambda stream=stream: len(stream.received()) >= 2, timeout=10, message="both deletions on the stream")
    # Whatever else would come (an event of the purge) comes within this.
    time.sleep(1)
    for stream in streams:
        events = stream.received()
        # events.md: a key's deletion is one key.deleted; no event comes for its tasks.
        assert Counter(event for event, _ in events) == Counter({"key.deleted": 2}), events
        assert sorted(data["key_id"] for _, data in events) == sorted(ids)
        stream.close()
    assert [task["id"] for task in all_tasks(b, token=token)] == [task["id"] for task in reversed(kept)]


def test_the_push_outbox_sends_each_push_once_with_changes_written_on_both_nodes(nodes, mocks):
    mock = mocks()
    (_, a), (_, b) = nodes({**RELAXED, **push_env(mock)})
    _, token = create_account(a)
    _, secret = create_key(b, token, "Claude Code")
    assert put_device(a, token, PHONE, apns_token=APNS).status == 200
    tasks = []
    for n in range(40):
        answer = (a, b)[n % 2].call("POST", "/v1/tasks", json={"title": f"Task {n}"}, token=secret)
        assert answer.status == 201, answer
        tasks.append(answer.json)
    for n, task in enumerate(tasks):
        answer = (b, a)[n % 2].call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "done"}, token=secret)
        assert answer.status == 200, answer
    expected = Counter({("task.created", task["id"], "New task"): 1 for task in tasks}) + \
        Counter({("task.updated", task["id"], "Task done"): 1 for task in tasks})
    mock.wait_for(len(expected), timeout=30)
    # A second send of any job would come within this.
    time.sleep(2)
    assert pushes(mock) == expected
    assert len(mock.requests) == len(expected)
    assert nodes.psql("SELECT count(*) FROM push_jobs") == ["0"]


def test_a_node_killed_mid_wait_leaves_its_call_to_the_other_and_its_claimed_pushes_after_their_lease(nodes, mocks):
    # A's APNs holds every answer: A's pushes stay claimed, sent and unanswered, until A dies.
    held, answering = mocks(delay=120), mocks()
    lease = {"PUSH_LEASE_SECONDS": str(LEASE)}
    (server_a, a), (_, b) = nodes({**RELAXED, **lease}, each=(push_env(held), push_env(answering)))
    server_a.expected_exit_code = None
    account, token = create_account(b)
    key, secret = create_key(b, token, "Claude Code")
    assert put_device(b, token, PHONE, apns_token=APNS).status == 200
    broken = []

    def wait_on_a():
        try:
            broken.append(a.call("GET", "/v1/inbox?wait=30", token=secret))
        except OSError as error:
            broken.append(error)

    # The agent waits on A for the person's message (inbox.md: a message plans no push, so
    # nothing of it kicks B's outbox), and A claims the pushes of its tasks.
    waiter = threading.Thread(target=wait_on_a)
    waiter.start()
    tasks = [a.call("POST", "/v1/tasks", json={"title": f"Task {n}"}, token=secret).json for n in range(5)]
    held.wait_for(len(tasks), timeout=10)
    claimed_by = time.monotonic()
    assert nodes.psql("SELECT count(*) FROM push_jobs WHERE leased_until IS NOT NULL") == [str(len(tasks))]

    server_a.kill9()
    waiter.join(10)
    [failure] = broken
    assert isinstance(failure, OSError), failure
    retried = []
    retry = threading.Thread(target=lambda: retried.append(b.call("GET", "/v1/inbox?wait=30", token=secret)))
    retry.start()
    time.sleep(0.2)
    sent = b.call("POST", "/v1/messages", json={"key_id": key["id"], "text": "Stop and rebase first."}, token=token)
    assert sent.status == 201, sent
    retry.join(10)
    [answer] = retried
    assert answer.status == 200 and [item["id"] for item in answer.json["items"]] == [sent.json["id"]], answer

    # B sends A's pushes by itself: at its next look after their lease ends.
    wait_until(lambda: answering.requests, timeout=3 * LEASE + 5, interval=0.02, message="B's first push")
    first_after = time.monotonic() - claimed_by
    assert first_after >= LEASE - 0.5, f"B sent a push A claimed {first_after:.1f} s after the claim, in its lease"
    answering.wait_for(len(tasks), timeout=LEASE + 5)
    time.sleep(LEASE + 1)
    assert pushes(answering) == Counter({("task.created", task["id"], "New task"): 1 for task in tasks})
    assert [request.status for request in answering.requests] == [200] * len(tasks)
    assert nodes.psql("SELECT count(*) FROM push_jobs") == ["0"]


def test_the_database_restarted_under_writes_through_both_nodes_loses_no_acknowledged_write(nodes, postgres):
    pair = nodes(RELAXED, timeout=10)
    (_, a), (_, b) = pair
    _, token = create_account(a)
    _, secret = create_key(b, token, "Claude Code")
    answers = {"a": [], "b": []}
    writing = threading.Event()
    writing.set()

    def write(name, client):
        n = 0
        while writing.is_set():
            n += 1
            answers[name].append(client.call("POST", "/v1/tasks", json={"title": f"{name} {n}"}, token=secret))
            time.sleep(0.01)

    writers = [threading.Thread(target=write, args=(name, client)) for name, (_, client) in zip("ab", pair)]
    for writer in writers:
        writer.start()
    try:
        wait_until(lambda: min(len(answers["a"]), len(answers["b"])) >= 20, timeout=10, message="writes before")
        postgres.shut_down()
        wait_until(lambda: all(client.call("GET", "/health").status == 503 for _, client in pair), timeout=10,
                   message="/health 503 on both")
        time.sleep(0.5)
        postgres.restart()
        wait_until(lambda: all(client.call("GET", "/health").status == 200 for _, client in pair), timeout=15,
                   interval=0.1, message="/health 200 on both")
        counts = {name: len(answers[name]) for name in answers}
        wait_until(lambda: all(len(answers[name]) >= counts[name] + 20 for name in answers), timeout=10,
                   message="writes after")
    finally:
        writing.clear()
        for writer in writers:
            writer.join(30)
        if postgres.process.poll() is not None:
            postgres.restart()

    acknowledged = set()
    for name, made in answers.items():
        statuses = [answer.status for answer in made]
        # Both nodes answered 503 while the database was away, never anything else, and
        # write again without a restart.
        assert set(statuses) == {201, 503}, (name, sorted(set(statuses)))
        assert statuses[-20:] == [201] * 20, (name, statuses[-30:])
        for answer in made:
            if answer.status == 503:
                assert_error(answer, 503, STORE_UNAVAILABLE)
                assert answer.header("Retry-After") == "1", answer
            else:
                acknowledged.add(answer.json["id"])
    stored = set(nodes.psql("SELECT id FROM tasks"))
    assert acknowledged <= stored, sorted(acknowledged - stored)[:5]
    for server, _ in pair:
        assert server.process.poll() is None
