"""Thousands of Web Push subscriptions failing at once (issue 21): every account's browsers
are at a push service that refuses the first push of each (`503`, `Retry-After: 1`) or, for a
few, holds it for 5 s, and every account gets a question at about the same moment. The server must keep the loop free
(no turn spends a lot of CPU), keep at most 16 pushes in flight, keep its memory bounded (the
queue is rows in the store, not in memory), and lose nothing: once the service takes them,
each browser gets its question exactly once.

The push service is `Tests/e2e/webpush_mock.py` on 127.0.0.1 (HTTPS with its own CA), which
checks each push's VAPID token and decrypts it with the subscription's key."""

import json
import threading
import time

from conftest import RELAXED_LIMITS, scaled
from loop_turns import METRICS_TOKEN, turn_buckets, turns_longer_than
from server_process import resident_bytes
from torture_support import KeepAlive
from webpush_mock import WebPushMock

SUBSCRIPTIONS = scaled(1000, 4000)
PER_ACCOUNT = 10
IN_FLIGHT = 16
# Subscriptions whose service holds the first push for 5 s before it takes it: enough of them
# to fill every place in flight, so the bound is reached, not just not exceeded.
HELD = 3 * IN_FLIGHT
# Growth of the resident memory allowed over the whole flood: the jobs wait in the store.
MEMORY_BOUND = 48 * 1024 * 1024
# A turn of the loop that spends this much CPU holds every client for as long.
TURN_BOUND = 0.256


def delivered(events_file):
    """Pushes the service took (201, or held and then taken: recorded as 0), by subscription;
    and every push it refused."""
    taken, refused = {}, 0
    try:
        lines = events_file.read_text().splitlines()
    except FileNotFoundError:
        return taken, refused
    for line in lines:
        event = json.loads(line)
        if event["status"] in (0, 201):
            taken.setdefault(event["path"], []).append(json.loads(event["plaintext"]))
        else:
            refused += 1
    return taken, refused


def test_thousands_of_subscriptions_failing_at_once_keep_the_loop_free_and_lose_nothing(start_server, tmp_path):
    events_file = tmp_path / "events.jsonl"
    mock = WebPushMock(str(tmp_path), str(events_file)).start()
    try:
        server = start_server({**RELAXED_LIMITS, "WEB_PUSH_ALLOW_PRIVATE_HOSTS": "true", "WEB_PUSH_CA_FILE": mock.ca_file,
                               "WEB_PUSH_SUBJECT": "mailto:ops@example.org", "METRICS_TOKEN": METRICS_TOKEN})
        client = KeepAlive(server.port)
        agents = []
        for account in range(SUBSCRIPTIONS // PER_ACCOUNT):
            token = client.json("POST", "/v1/accounts", {}, expect=201)["token"]
            secret = client.json("POST", "/v1/keys", {"label": "Agent"}, token=token, expect=201)["secret"]
            for index in range(PER_ACCOUNT):
                held = account * PER_ACCOUNT + index < HELD
                made = mock.subscribe(f"a{account}s{index}", [0] if held else [503])
                keys = made.as_json()
                body = {"endpoint": keys["endpoint"], "expirationTime": None,
                        "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]}}
                client.json("PUT", f"/v1/web-push/subscriptions/wps_{index}", body, token=token, expect=200)
            agents.append(secret)

        baseline = resident_bytes(server.pid)
        before = turn_buckets(server.port)
        peak = baseline
        stop = threading.Event()

        def watch_memory():
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, resident_bytes(server.pid))
                time.sleep(0.05)

        watcher = threading.Thread(target=watch_memory, daemon=True)
        watcher.start()
        asked = {}
        for number, secret in enumerate(agents):
            question = client.json("POST", "/v1/questions", {"prompt": f"Question {number}?", "expires_in": 3600},
                                   key=secret, expect=201)
            asked[number] = question["id"]
        # Every subscription's first push is refused, then taken.
        deadline = time.monotonic() + scaled(240, 900)
        while time.monotonic() < deadline:
            taken, refused = delivered(events_file)
            if len(taken) == SUBSCRIPTIONS:
                break
            time.sleep(0.5)
        stop.set()
        watcher.join(5)
        taken, refused = delivered(events_file)
        turns, long_turns = turns_longer_than(before, turn_buckets(server.port), TURN_BOUND)

        assert len(taken) == SUBSCRIPTIONS, f"{len(taken)} of {SUBSCRIPTIONS} browsers got their question ({refused} refusals)"
        assert refused == SUBSCRIPTIONS - HELD, refused
        for path, payloads in taken.items():
            account = int(path.split("/push/a")[1].split("s")[0])
            assert [p["question_id"] for p in payloads] == [asked[account]], (path, payloads)
        assert mock.max_in_flight == IN_FLIGHT, mock.max_in_flight
        assert peak - baseline < MEMORY_BOUND, (baseline, peak)
        assert long_turns == 0, f"{long_turns} of {turns} turns spent over {TURN_BOUND} s of CPU"
        print(f"{SUBSCRIPTIONS} subscriptions: {refused} refusals, at most {mock.max_in_flight} in flight, "
              f"memory {baseline / 2**20:.1f} -> {peak / 2**20:.1f} MiB, {turns} turns")
    finally:
        mock.stop()
