"""The reliability suite (issue 12) reuses the end-to-end machinery: the same static binary,
`Tests/e2e/server_process.py`, its clients and its secret check. `TORTURE=full` (what
`make torture` sets) runs everything at its full size; the default is the short form that
`make test` runs in a few minutes.
"""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parents[1] / "e2e"
sys.path.insert(0, str(E2E))

_spec = importlib.util.spec_from_file_location("e2e_conftest", E2E / "conftest.py")
_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_e2e)

# The fixtures of the end-to-end suite, under their own names.
built_binary = _e2e.built_binary
start_server = _e2e.start_server
RELAXED_LIMITS = _e2e.RELAXED_LIMITS

FULL = os.environ.get("TORTURE", "short") == "full"


def scaled(short, full):
    """The short form's figure, or the full form's under TORTURE=full."""
    return full if FULL else short


def pytest_collection_modifyitems(config, items):
    if FULL:
        return
    skip = pytest.mark.skip(reason="long form only (TORTURE=full, make torture)")
    for item in items:
        if "full" in item.keywords:
            item.add_marker(skip)
