import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def deb() -> Path:
    """The package `make deb` built (RELAYDECK_DEB names it; make package-test sets it)."""
    named = os.environ.get("RELAYDECK_DEB")
    if named:
        path = Path(named)
    else:
        arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
        version = subprocess.run([str(ROOT / "packaging/version")], capture_output=True, text=True).stdout.strip()
        path = ROOT / "dist" / f"relaydeck_{version}_{arch}.deb"
    if not path.exists():
        pytest.exit(f"{path} does not exist: run `make deb` first (or `make package-test`)", returncode=1)
    return path
