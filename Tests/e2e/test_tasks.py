"""GET/POST /v1/tasks, GET/PATCH/DELETE /v1/tasks/{task_id} (rest-api.md#tasks)."""

import time

import pytest

from api import (
    ACCOUNT_ONLY, KEY_NOT_FOUND, TASK_NOT_FOUND, UNKNOWN_KEY_ID, all_tasks, assert_error, assert_timestamp,
    assert_validation, create_account, create_key, create_task, find_key, list_tasks,
)

STATUSES = "Must be one of: todo, in_progress, done, cancelled."
PRIORITIES = "Must be one of: low, medium, high, urgent."


@pytest.fixture
def agent(client):
    """An account, its token, one key and its secret."""
    _, token = create_account(client)
    key, secret = create_key(client, token, "Claude Code")
    return token, key, secret


def test_an_agent_makes_a_task_with_the_defaults_its_host_and_sees_it_at_once(client, agent):
    token, key, secret = agent
    task = create_task(client, secret, headers={"X-Relaydeck-Host": " studio-mac "}, title="  Add dark\n mode ")
    assert_timestamp(task["created_at"], near=time.time())
    assert task == {
        "id": task["id"], "key_id": key["id"], "title": "Add dark mode", "description": "", "status": "todo",
        "priority": "medium", "notify": True, "progress": None, "status_note": None, "source": "agent",
        "created_at": task["created_at"], "updated_at": task["created_at"], "completed_at": None,
        "seen_at": task["created_at"], "host": "studio-mac",
    }
    for credential in ({"api_key": secret}, {"token": token}):
        response = client.call("GET", f"/v1/tasks/{task['id']}", **credential)
        assert response.status == 200 and response.json == task, response
    assert find_key(client, token, key["id"])["counts"] == {"todo": 1, "in_progress": 0, "done": 0, "cancelled": 0}
    # The host is that of the request that made the task, for good.
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "in_progress"}, api_key=secret,
                           headers={"X-Relaydeck-Host": "laptop"})
    assert response.status == 200 and response.json["host"] == "studio-mac", response


def test_the_person_makes_a_task_for_a_key_from_the_app(client, agent):
    token, key, _ = agent
    task = create_task(client, token=token, headers={"X-Relaydeck-Host": "studio-mac"}, key_id=key["id"],
                       title="Ship", description="# Plan\n\n- one\n  - two  ", status="in_progress",
                       priority="urgent", notify=False, progress=20, status_note="  starting \n now ")
    assert task["source"] == "app" and task["seen_at"] is None and task["host"] is None, task
    assert task["description"] == "# Plan\n\n- one\n  - two  ", task
    assert (task["status"], task["priority"], task["notify"], task["progress"], task["status_note"]) == \
        ("in_progress", "urgent", False, 20, "starting now")


def test_key_id_is_necessary_for_the_account_and_refused_for_a_key(client, agent):
    token, key, secret = agent
    assert_validation(client.call("POST", "/v1/tasks", json={"title": "x"}, token=token), {"key_id": "Required."})
    _, other_token = create_account(client)
    their_key, _ = create_key(client, other_token, "theirs")
    for key_id in (their_key["id"], UNKNOWN_KEY_ID):
        response = client.call("POST", "/v1/tasks", json={"key_id": key_id, "title": "x"}, token=token)
        assert_error(response, 404, KEY_NOT_FOUND)
    response = client.call("POST", "/v1/tasks", json={"key_id": key["id"], "title": "x"}, api_key=secret)
    assert_validation(response, {"key_id": ACCOUNT_ONLY})
    assert list_tasks(client, token=token) == {"tasks": [], "next_cursor": None}


def test_every_bad_field_is_named_at_once(client, agent):
    _, _, secret = agent
    body = {"title": " \n ", "description": "x" * 20_001, "status": "open", "priority": 3, "notify": 1,
            "progress": 50.5, "status_note": "n" * 141, "owner": "me"}
    assert_validation(client.call("POST", "/v1/tasks", json=body, api_key=secret), {
        "description": "Must be 0 to 20,000 characters.", "notify": "Must be true or false.", "owner": "Unknown field.",
        "priority": PRIORITIES, "progress": "Must be an integer from 0 to 100.", "status": STATUSES,
        "status_note": "Must be 0 to 140 characters.", "title": "Must be 1 to 200 characters.",
    })


def test_patch_keeps_absent_fields_and_clears_null_ones(client, agent):
    token, _, secret = agent
    task = create_task(client, secret, progress=30, status_note="busy")
    time.sleep(0.01)
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"progress": None, "status_note": None}, token=token)
    assert response.status == 200, response
    patched = response.json
    assert patched["progress"] is None and patched["status_note"] is None and patched["title"] == task["title"]
    assert patched["updated_at"] > task["updated_at"]
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"title": None, "notify": None}, token=token)
    assert_validation(response, {"notify": "Must be true or false.", "title": "Must be a string."})
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status_note": ""}, api_key=secret)
    assert response.json == patched, response


def test_done_sets_progress_and_completed_at_and_another_status_clears_it(client, agent):
    token, key, secret = agent
    task = create_task(client, secret, progress=10)
    done = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "done"}, api_key=secret).json
    assert done["progress"] == 100 and done["completed_at"] == done["updated_at"], done
    assert find_key(client, token, key["id"])["counts"] == {"todo": 0, "in_progress": 0, "done": 1, "cancelled": 0}
    again = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "cancelled"}, api_key=secret).json
    assert again["completed_at"] is None and again["status"] == "cancelled", again
    assert find_key(client, token, key["id"])["counts"] == {"todo": 0, "in_progress": 0, "done": 0, "cancelled": 1}


def test_a_patch_that_changes_nothing_keeps_updated_at(client, agent):
    _, _, secret = agent
    task = create_task(client, secret, title="Same", priority="high")
    time.sleep(0.01)
    body = {"title": " Same ", "priority": "high", "status": "todo", "notify": True, "progress": None}
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json=body, api_key=secret)
    assert response.status == 200 and response.json == task, response


def test_delete_answers_204_and_the_task_is_gone(client, agent):
    token, key, secret = agent
    task = create_task(client, secret)
    response = client.call("DELETE", f"/v1/tasks/{task['id']}", token=token)
    assert response.status == 204 and response.body == b"", response
    assert_error(client.call("GET", f"/v1/tasks/{task['id']}", api_key=secret), 404, TASK_NOT_FOUND)
    assert_error(client.call("DELETE", f"/v1/tasks/{task['id']}", api_key=secret), 404, TASK_NOT_FOUND)
    assert find_key(client, token, key["id"])["counts"]["todo"] == 0


def test_a_key_never_sees_or_touches_another_keys_task_nor_an_account_another_accounts(client, agent):
    token, _, secret = agent
    task = create_task(client, secret)
    _, other_secret = create_key(client, token, "other")
    _, stranger = create_account(client)
    for credential in ({"secret": other_secret}, {"token": stranger}):
        auth = {"api_key": credential.get("secret"), "token": credential.get("token")}
        assert_error(client.call("GET", f"/v1/tasks/{task['id']}", **auth), 404, TASK_NOT_FOUND)
        response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"title": "mine"}, **auth)
        assert_error(response, 404, TASK_NOT_FOUND)
        assert_error(client.call("DELETE", f"/v1/tasks/{task['id']}", **auth), 404, TASK_NOT_FOUND)
        assert list_tasks(client, **credential) == {"tasks": [], "next_cursor": None}
    assert client.call("GET", f"/v1/tasks/{task['id']}", api_key=secret).json == task


def test_the_tasks_of_a_deleted_key_are_gone_at_once(client, agent):
    token, key, secret = agent
    task = create_task(client, secret)
    kept_key, kept_secret = create_key(client, token, "kept")
    kept = create_task(client, kept_secret)
    assert client.call("DELETE", f"/v1/keys/{key['id']}", token=token).status == 204
    assert list_tasks(client, token=token)["tasks"] == [kept]
    assert_error(client.call("GET", f"/v1/tasks/{task['id']}", token=token), 404, TASK_NOT_FOUND)
    assert kept_key["id"] == kept["key_id"]


def test_the_list_is_newest_first_filters_and_pages(client, agent):
    token, key, secret = agent
    made = []
    for index, (status, priority) in enumerate([("todo", "low"), ("done", "high"), ("in_progress", "high"),
                                                 ("cancelled", "urgent"), ("todo", "medium")]):
        made.append(create_task(client, secret, title=f"t{index}", status=status, priority=priority))
        time.sleep(0.002)
    newest = list(reversed(made))
    assert all_tasks(client, "?limit=2", secret=secret) == newest
    assert all_tasks(client, "?limit=1", token=token) == newest
    assert list_tasks(client, "?status=todo,in_progress", secret=secret)["tasks"] == [made[4], made[2], made[0]]
    assert list_tasks(client, "?priority=high", token=token)["tasks"] == [made[2], made[1]]
    assert list_tasks(client, f"?key_id={key['id']}&status=done&priority=high,urgent", token=token)["tasks"] == [made[1]]
    assert list_tasks(client, f"?key_id={UNKNOWN_KEY_ID}", token=token)["tasks"] == []


def test_a_task_moved_while_paging_comes_exactly_once(client, agent):
    token, _, secret = agent
    made = []
    for index in range(6):
        made.append(create_task(client, secret, title=f"t{index}"))
        time.sleep(0.002)
    first = list_tasks(client, "?limit=2", token=token)
    assert first["tasks"] == [made[5], made[4]]
    # The oldest task moves to the top and a new one comes: the pages go on as they began.
    client.call("PATCH", f"/v1/tasks/{made[0]['id']}", json={"title": "moved"}, api_key=secret)
    create_task(client, secret, title="new")
    rest = all_tasks(client, f"?limit=2&cursor={first['next_cursor']}", token=token)
    assert [t["title"] for t in rest] == ["t3", "t2", "t1", "moved"]


@pytest.mark.parametrize("query, fields", [
    ("?limit=0", {"limit": "Must be an integer from 1 to 500."}),
    ("?limit=501", {"limit": "Must be an integer from 1 to 500."}),
    ("?limit=ten", {"limit": "Must be an integer from 1 to 500."}),
    ("?status=open", {"status[0]": STATUSES}),
    ("?status=todo,", {"status[1]": STATUSES}),
    ("?priority=HIGH", {"priority[0]": PRIORITIES}),
    ("?cursor=abc", {"cursor": "Must be a next_cursor of this list."}),
    ("?cursor=MS4yLjMudHNrX3g", {"cursor": "Must be a next_cursor of this list."}),
])
def test_bad_list_parameters_are_422(client, agent, query, fields):
    token, _, _ = agent
    assert_validation(client.call("GET", "/v1/tasks" + query, token=token), fields)


def test_key_id_in_the_list_is_for_the_account_only(client, agent):
    _, key, secret = agent
    assert_validation(client.call("GET", f"/v1/tasks?key_id={key['id']}", api_key=secret), {"key_id": ACCOUNT_ONLY})
