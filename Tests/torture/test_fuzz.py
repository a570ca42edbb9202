"""Bad input, in process: the JSON parser, the HTTP/1.1 request parser and the CBOR decoder
under libFuzzer (`swiftc -sanitize=fuzzer,address`, built by fuzz/build.sh) for a fixed time
each, starting from the corpus kept in `Tests/torture/corpus/<name>` (plus the JSONTestSuite
corpus and the App Attest objects of `Tests/Fixtures`). The harnesses check properties, not
only the absence of a crash: see the comment at the top of each `fuzz/*_fuzz.swift`.

The run works on a copy of the corpus, so the repository's files never change by themselves;
`FUZZ_SECONDS` sets the time of each fuzzer (short form 20 s, long form 120 s).
"""

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import scaled

ROOT = Path(__file__).resolve().parents[2]
FUZZ_DIR = ROOT / ".build" / "fuzz"


@pytest.fixture(scope="module")
def fuzzers():
    done = subprocess.run([str(ROOT / "Tests/torture/fuzz/build.sh")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    return FUZZ_DIR


def seeds(name: str, into: Path) -> list[Path]:
    """The extra seed directories of one fuzzer (read only by libFuzzer)."""
    if name == "json":
        return [ROOT / "Tests/Fixtures/json/test_parsing"]
    if name == "cbor":
        into.mkdir()
        for vector in (ROOT / "Tests/Fixtures/app-attest/attestation").glob("*.json"):
            encoded = json.loads(vector.read_text()).get("attestation_b64")
            if encoded:
                (into / vector.stem).write_bytes(base64.b64decode(encoded))
        return [into]
    return []


@pytest.mark.parametrize("name", ["json", "http", "cbor"])
def test_fuzzer_finds_nothing_in_a_fixed_time(fuzzers, name, tmp_path):
    seconds = int(os.environ.get("FUZZ_SECONDS", scaled(20, 120)))
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "Tests/torture/corpus" / name, corpus)
    argv = [str(fuzzers / f"{name}-fuzz"), f"-max_total_time={seconds}", "-max_len=4096", "-timeout=5",
            "-rss_limit_mb=1024", f"-artifact_prefix={tmp_path}/", "-print_final_stats=1",
            str(corpus), *map(str, seeds(name, tmp_path / "seeds"))]
    env = {**os.environ, "SWIFT_BACKTRACE": "enable=no", "ASAN_OPTIONS": "detect_leaks=1"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 300, env=env)
    artifacts = [p.name for p in tmp_path.iterdir() if p.name.startswith(("crash-", "timeout-", "oom-", "leak-"))]
    assert done.returncode == 0 and not artifacts, (
        f"{name}-fuzz exited {done.returncode}, artifacts {artifacts} in {tmp_path}:\n{done.stderr[-6000:]}")
    runs = [line for line in done.stderr.splitlines() if line.startswith("stat::number_of_executed_units")]
    assert runs and int(runs[0].split(":")[-1]) > 1000, runs
