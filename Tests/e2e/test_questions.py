"""Questions over real sockets (rest-api.md#questions): ask, list, answer, cancel, the answer
race, and waits that wake the moment the person answers."""

import select
import socket
import time

from api import assert_error, assert_validation, create_account, create_key
from raw_http import RawConnection, request_bytes

QUESTION_FIELDS = {"id", "key_id", "task_id", "prompt", "kind", "options", "status", "answer", "created_at",
                   "answered_at", "expires_at"}
NOT_FOUND = ("not_found", "Question not found.")


def setup(client):
    _, token = create_account(client)
    _, secret = create_key(client, token)
    return token, secret


def ask(client, secret, **body):
    response = client.call("POST", "/v1/questions", json={"prompt": "Deploy now?", **body}, token=secret)
    assert response.status == 201, response
    assert set(response.json) == QUESTION_FIELDS
    return response.json


def test_a_question_is_asked_answered_and_listed(client):
    token, secret = setup(client)
    question = ask(client, secret, kind="choice", options=["Staging", "Production"], expires_in=600)
    assert question["status"] == "pending" and question["answer"] is None
    assert question["options"] == ["Staging", "Production"]
    assert abs(question["expires_at"] - question["created_at"] - 600) < 0.01
    assert client.call("GET", "/v1/questions", token=token).json == {"questions": [question]}
    answered = client.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Production"},
                           token=token)
    assert answered.status == 200, answered
    assert answered.json["status"] == "answered" and answered.json["answer"] == "Production"
    assert client.call("GET", "/v1/questions", token=secret).json == {"questions": []}
    listed = client.call("GET", "/v1/questions?status=answered", token=secret).json["questions"]
    assert [q["id"] for q in listed] == [question["id"]]
    again = client.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Staging"}, token=token)
    assert_error(again, 409, ("conflict", "The question is answered."))


def test_an_invalid_question_names_every_field(client):
    _, secret = setup(client)
    response = client.call("POST", "/v1/questions", json={"kind": "choice", "options": ["a"], "expires_in": 5},
                           token=secret)
    assert_validation(response, {"prompt": "Required.", "options": "Must have 2 to 4 items.",
                                 "expires_in": "Must be an integer from 60 to 86,400."})


def test_another_key_and_another_account_see_nothing(py):
    token, secret = setup(py)
    _, other = create_key(py, token, "Other")
    _, stranger = create_account(py)
    question = ask(py, secret)
    for credential in (other, stranger):
        assert_error(py.call("GET", f"/v1/questions/{question['id']}", token=credential), 404, NOT_FOUND)
    assert_error(py.call("DELETE", f"/v1/questions/{question['id']}", token=other), 404, NOT_FOUND)
    assert_error(py.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Yes"}, token=stranger),
                 404, NOT_FOUND)


def test_two_answers_at_the_same_time_give_one_200_and_one_409(server, py):
    token, secret = setup(py)
    question = ask(py, secret)
    first, second = RawConnection(server.port), RawConnection(server.port)
    for connection, answer in ((first, "Yes"), (second, "No")):
        connection.send(request_bytes("POST", f"/v1/questions/{question['id']}/answer",
                                      f'{{"answer": "{answer}"}}', {"Authorization": f"Bearer {token}"}))
    statuses = sorted([first.read_response().status, second.read_response().status])
    assert statuses == [200, 409]
    first.close()
    second.close()


def test_an_answer_wakes_the_waiting_agent_within_milliseconds(server, py):
    token, secret = setup(py)
    question = ask(py, secret)
    waiting = RawConnection(server.port, timeout=60)
    waiting.send(request_bytes("GET", f"/v1/questions/{question['id']}?wait=50", None,
                               {"Authorization": f"Bearer {secret}"}))
    time.sleep(0.3)
    answered_at = time.monotonic()
    assert py.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Yes"}, token=token).status == 200
    response = waiting.read_response()
    latency = time.monotonic() - answered_at
    assert response.status == 200 and response.json["status"] == "answered", response
    assert latency < 0.5, latency
    waiting.close()


def test_a_wait_ends_with_pending_after_its_time(server, py):
    _, secret = setup(py)
    question = ask(py, secret)
    started = time.monotonic()
    response = py.call("GET", f"/v1/questions/{question['id']}?wait=1", token=secret)
    assert response.status == 200 and response.json["status"] == "pending"
    assert 0.9 <= time.monotonic() - started < 3


def test_cancel_is_204_twice_then_409_once_answered(client):
    token, secret = setup(client)
    question = ask(client, secret)
    assert client.call("DELETE", f"/v1/questions/{question['id']}", token=secret).status == 204
    assert client.call("DELETE", f"/v1/questions/{question['id']}", token=secret).status == 204
    answered = ask(client, secret)
    client.call("POST", f"/v1/questions/{answered['id']}/answer", json={"answer": "No"}, token=token)
    assert_error(client.call("DELETE", f"/v1/questions/{answered['id']}", token=secret), 409,
                 ("conflict", "The question is answered."))


def test_a_thousand_waiting_calls_cost_no_thread_each(server, py):
    """32 waiting calls per key: 32 keys (two accounts) hold 1,024 calls; the server's thread
    count does not move, and the 33rd call of a key is 429."""
    questions = []
    for _ in range(2):
        _, token = create_account(py)
        for index in range(16):
            _, secret = create_key(py, token, f"key {index}")
            questions.append((secret, ask(py, secret)["id"]))
    threads_before = threads(server.pid)
    sockets = []
    for secret, question_id in questions:
        for _ in range(32):
            conn = socket.create_connection((server.host, server.port))
            conn.sendall(request_bytes("GET", f"/v1/questions/{question_id}?wait=50", None,
                                       {"Authorization": f"Bearer {secret}"}))
            sockets.append(conn)
    try:
        time.sleep(1.0)
        poller = select.poll()
        for conn in sockets:
            poller.register(conn, select.POLLIN)
        assert poller.poll(0) == [], "a waiting call was answered early"
        assert threads(server.pid) == threads_before
        secret, question_id = questions[0]
        over = py.call("GET", f"/v1/questions/{question_id}?wait=50", token=secret)
        assert over.status == 429 and over.header("Retry-After") == "1", over
        assert py.call("GET", "/health").status == 200
    finally:
        for conn in sockets:
            conn.close()


def threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    raise AssertionError("no Threads line")


def test_an_answer_reaches_the_agents_inbox(client):
    token, secret = setup(client)
    task = client.call("POST", "/v1/tasks", json={"title": "Deploy"}, token=secret).json
    question = ask(client, secret, task_id=task["id"])
    client.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Yes"}, token=token)
    items = client.call("GET", "/v1/inbox", token=secret).json["items"]
    assert [(i["kind"], i["text"], i["question_id"], i["task_id"], i["from"]) for i in items] == [
        ("answer", "Yes", question["id"], task["id"], {"type": "person"})]


def test_deleting_a_task_cancels_its_pending_questions_and_wakes_the_wait(server, py):
    token, secret = setup(py)
    task = py.call("POST", "/v1/tasks", json={"title": "Deploy"}, token=secret).json
    pending = ask(py, secret, task_id=task["id"])
    answered = ask(py, secret, task_id=task["id"])
    py.call("POST", f"/v1/questions/{answered['id']}/answer", json={"answer": "No"}, token=token)
    waiting = RawConnection(server.port, timeout=60)
    waiting.send(request_bytes("GET", f"/v1/questions/{pending['id']}?wait=50", None,
                               {"Authorization": f"Bearer {secret}"}))
    time.sleep(0.2)
    assert py.call("DELETE", f"/v1/tasks/{task['id']}", token=token).status == 204
    response = waiting.read_response()
    assert response.json["status"] == "cancelled", response
    waiting.close()
    assert py.call("GET", f"/v1/questions/{answered['id']}", token=secret).json["status"] == "answered"
