"""MCP over raw HTTP for the e2e tests of POST /mcp, and validation of our messages against the
JSON Schemas of the specification (../shared/spec/mcp/, or MCP_SCHEMAS)."""

import json
import os
import warnings
from pathlib import Path

import pytest

MODERN = "2026-07-28"
LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"]
SCHEMA_DIR = Path(os.environ.get("MCP_SCHEMAS", Path(__file__).resolve().parents[2] / ".." / "shared" / "spec" / "mcp"))
_validators: dict = {}


def meta(version: str = MODERN, client: str = "pytest") -> dict:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def modern(client, secret: str, method: str, params: dict | None = None, id_=1, headers: dict | None = None,
           name: str | None = None):
    """A 2026-07-28 request with `_meta` and its headers (each can be overridden)."""
    body = {"jsonrpc": "2.0", "id": id_, "method": method, "params": {**(params or {}), "_meta": meta()}}
    sent = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        sent["Mcp-Name"] = name
    if headers is not None:
        sent = headers
    return client.call("POST", "/mcp", json=body, api_key=None, headers={"Authorization": f"Bearer {secret}", **sent})


def legacy(client, secret: str, method: str, params: dict | None = None, version: str | None = "2025-06-18", id_=1):
    body = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}
    headers = {"Authorization": f"Bearer {secret}"}
    if version:
        headers["MCP-Protocol-Version"] = version
    return client.call("POST", "/mcp", json=body, headers=headers)


def tool(client, secret: str, name: str, arguments: dict | None = None) -> dict:
    response = modern(client, secret, "tools/call", {"name": name, "arguments": arguments or {}}, name=name)
    assert response.status == 200, response
    validate(response.json, "JSONRPCResultResponse")
    validate(response.json["result"], "CallToolResult")
    return response.json["result"]


def validate(message: dict, definition: str, version: str = MODERN) -> None:
    """Checks `message` against `definition` of the revision's JSON Schema."""
    jsonschema = pytest.importorskip("jsonschema")
    key = (version, definition)
    if key not in _validators:
        path = SCHEMA_DIR / f"schema-{version}.json"
        if not path.exists():
            # The transport rules are still checked; only this validation is left out.
            warnings.warn(f"{path} is missing: set MCP_SCHEMAS to the folder of the MCP JSON Schemas")
            return
        schema = json.loads(path.read_text())
        defs = "$defs" if "$defs" in schema else "definitions"
        root = {**schema, "$ref": f"#/{defs}/{definition}"}
        _validators[key] = jsonschema.validators.validator_for(schema)(root)
    errors = sorted(_validators[key].iter_errors(message), key=lambda e: e.path)
    assert not errors, f"{definition} ({version}): {errors[0].message} at {list(errors[0].path)} in {message}"
