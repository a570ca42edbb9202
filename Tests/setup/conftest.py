"""The `machine` fixture: a stand-in Debian machine of the test's own (see standins.py)."""

import pytest

from standins import Machine


@pytest.fixture
def machine(tmp_path):
    return Machine(tmp_path)
