"""The JSON parser at the server's door: every document of the JSONTestSuite corpus
(Tests/Fixtures/json/test_parsing, MIT; the unit tests feed it to the parser in process) sent
as the body of `POST /v1/tasks`. A `y_` document is never `400` "not valid JSON" (it is JSON,
so the answer is about its shape: `422`, or a task); an `n_` document is exactly that `400`;
an `i_` document is one or the other. (An empty body is no body at all, not a document.) Nothing crashes or hangs, and the server keeps serving."""

import json
from pathlib import Path

import pytest

from conftest import RELAXED_LIMITS
from server_process import ServerProcess
from torture_support import KeepAlive, new_account

CORPUS = Path(__file__).resolve().parents[1] / "Fixtures" / "json" / "test_parsing"
NOT_JSON = {"error": {"code": "bad_request", "message": "The body is not valid JSON."}}


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    server = ServerProcess(tmp_path_factory.mktemp("json"), RELAXED_LIMITS).start()
    client = KeepAlive(server.port)
    _, [(_, secret)] = new_account(client)
    yield client, secret
    client.close()
    server.teardown()


def test_every_corpus_document_gets_the_answer_its_prefix_calls_for(target):
    client, secret = target
    files = sorted(CORPUS.iterdir())
    assert len(files) > 300
    wrong = []
    for path in files:
        if path.stat().st_size == 0:
            continue  # n_structure_no_data: an empty body is no body (the route's 422 names what is missing)
        status, _, body = client.call("POST", "/v1/tasks", path.read_bytes(), key=secret)
        refused_as_not_json = status == 400 and json.loads(body) == NOT_JSON
        kind = path.name[0]
        if kind == "y" and refused_as_not_json or kind == "n" and not refused_as_not_json:
            wrong.append((path.name, status, body[:120]))
        elif kind == "i" and not (refused_as_not_json or status in (201, 422)):
            wrong.append((path.name, status, body[:120]))
    assert not wrong, wrong
    assert client.json("GET", "/health", expect=200) == {"status": "ok", "store": "ok"}
