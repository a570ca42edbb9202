"""The caps of overview.md#limits: 1,000 open and 5,000 closed tasks per key."""

import http.client
import json

from api import assert_error, create_account, create_key, find_key
from http_clients import PythonClient

OPEN_CAP = ("conflict", "A key can have 1,000 open tasks.")


def bulk_create(server, secret: str, bodies) -> list[dict]:
    """Many POST /v1/tasks over one kept-alive connection, so that thousands take seconds."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    made = []
    try:
        for body in bodies:
            conn.request("POST", "/v1/tasks", body=json.dumps(body),
                         headers={"X-API-Key": secret, "Content-Type": "application/json"})
            response = conn.getresponse()
            data = response.read()
            assert response.status == 201, (response.status, data)
            made.append(json.loads(data))
    finally:
        conn.close()
    return made


def test_the_thousand_and_first_open_task_is_a_conflict(server):
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    key, secret = create_key(client, token)
    bulk_create(server, secret, ({"title": f"t{i}"} for i in range(999)))
    closed = bulk_create(server, secret, [{"title": "closed", "status": "done"}, {"title": "last", "status": "in_progress"}])
    assert_error(client.call("POST", "/v1/tasks", json={"title": "one more"}, api_key=secret), 409, OPEN_CAP)
    response = client.call("PATCH", f"/v1/tasks/{closed[0]['id']}", json={"status": "todo"}, api_key=secret)
    assert_error(response, 409, OPEN_CAP)
    assert find_key(client, token, key["id"])["counts"] == {"todo": 999, "in_progress": 1, "done": 1, "cancelled": 0}
    # Another key of the account has room of its own, and a closed task still fits.
    _, other = create_key(client, token, "other")
    bulk_create(server, other, [{"title": "fine"}])
    bulk_create(server, secret, [{"title": "closed too", "status": "cancelled"}])


def test_one_more_closed_task_removes_the_oldest_closed_one(server):
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    key, secret = create_key(client, token)
    made = bulk_create(server, secret, ({"title": f"c{i}", "status": "done" if i % 2 else "cancelled"}
                                        for i in range(5000)))
    open_task = bulk_create(server, secret, [{"title": "open"}])[0]
    response = client.call("PATCH", f"/v1/tasks/{open_task['id']}", json={"status": "done"}, api_key=secret)
    assert response.status == 200, response
    # The oldest closed task went: of the tasks of the first millisecond (a fast machine makes
    # several in one), the one with the smallest ID, as the list order has it.
    first = [t for t in made if t["updated_at"] == made[0]["updated_at"]]
    gone = [t for t in first if client.call("GET", f"/v1/tasks/{t['id']}", api_key=secret).status == 404]
    assert [t["id"] for t in gone] == [min(t["id"] for t in first)], (len(first), gone)
    assert_error(client.call("GET", f"/v1/tasks/{gone[0]['id']}", api_key=secret), 404, ("not_found", "Task not found."))
    counts = find_key(client, token, key["id"])["counts"]
    assert counts["done"] + counts["cancelled"] == 5000 and counts["todo"] == 0, counts
