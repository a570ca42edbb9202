"""Text fields bounded in bytes as well as characters, and labels that would show nothing
(overview.md#limits; the combining-mark attack of issue 6)."""

import json
import time

import pytest

from api import assert_validation, create_account, create_key, list_keys

HEAVY = "Must not contain a character of more than 32 code points."
BYTES = "Must be at most 160 bytes of UTF-8 as sent."
INVISIBLE = "Must contain a visible character."


def test_one_character_of_400_000_combining_marks_is_refused_quickly(client):
    """800 KB of UTF-8 (under the 1 MiB body limit) that counts as one character: refused by
    its bytes, before any of it is counted."""
    _, token = create_account(client)
    body = json.dumps({"label": "e" + "\u0301" * 400_000}, ensure_ascii=False).encode()
    assert len(body) < 1024 * 1024
    started = time.monotonic()
    response = client.call("POST", "/v1/keys", body=body, token=token)
    elapsed = time.monotonic() - started
    assert_validation(response, {"label": BYTES})
    assert elapsed < 2.0, elapsed
    assert list_keys(client, token) == []


def test_one_character_of_33_code_points_within_the_bytes_is_refused(client):
    _, token = create_account(client)
    response = client.call("POST", "/v1/keys", json={"label": "e" + "\u0301" * 32}, token=token)
    assert_validation(response, {"label": HEAVY})
    assert client.call("POST", "/v1/keys", json={"label": "e" + "\u0301" * 31}, token=token).status == 201


def test_forty_heavy_characters_are_refused_by_their_bytes(client):
    _, token = create_account(client)
    label = ("a" + "\U0001D167" * 31) * 40
    assert len(label.encode()) == 5000
    response = client.call("POST", "/v1/keys", json={"label": label}, token=token)
    assert_validation(response, {"label": BYTES})


def test_a_patch_cannot_grow_a_label_past_its_bounds(client):
    _, token = create_account(client)
    key, _ = create_key(client, token, "Cursor")
    response = client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "x" + "\u0301" * 100_000}, token=token)
    assert_validation(response, {"label": BYTES})
    response = client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "x" + "\u0301" * 40}, token=token)
    assert_validation(response, {"label": HEAVY})
    assert [k["label"] for k in list_keys(client, token)] == ["Cursor"]


def test_twenty_keys_of_the_largest_labels_keep_the_list_small(py):
    _, token = create_account(py)
    family = "\U0001F469\U0001F3FD\u200D\U0001F469\U0001F3FD\u200D\U0001F467\U0001F3FD\u200D\U0001F466\U0001F3FD"
    largest = family * 3 + "a" * 37  # 40 characters, 160 bytes: the most a label may hold
    assert len(largest.encode()) == 160
    for _ in range(20):
        create_key(py, token, largest)
    assert py.call("POST", "/v1/keys", json={"label": family * 4}, token=token).status == 422
    response = py.call("GET", "/v1/keys", token=token)
    assert response.status == 200
    assert len(response.body) < 20_000, len(response.body)


@pytest.mark.parametrize("label", ["\u200b", "\u202e", " \u200b\u2060 ", "\ufeff", "\u3164", "\u00ad\ufe0f"])
def test_a_label_that_shows_nothing_is_refused(client, label):
    _, token = create_account(client)
    response = client.call("POST", "/v1/keys", json={"label": label}, token=token)
    assert_validation(response, {"label": INVISIBLE})


def test_invisible_characters_beside_visible_ones_are_kept(py):
    _, token = create_account(py)
    key, _ = create_key(py, token, "a\u200bb")
    assert key["label"] == "a\u200bb"
