"""scripts/ensure-deps and the Python side: the venv with pytest is made when it is missing
or broken and left alone when it works; a python without the venv module gets python3-venv
when that helps, and one plain line when it does not; a failed pip install says so."""

from standins import plain_line


def test_a_missing_venv_is_made_with_pytest(machine):
    done = machine.ensure_deps(venv=True)
    assert done.returncode == 0, done
    assert machine.calls("python3").count(f"python3 -m venv {machine.venv}") == 1
    assert any(call.startswith("venv-python -m pip install") and "pytest" in call for call in machine.calls("venv-python"))
    # The tools of the end-to-end tests come in the same install: cryptography and cbor2 to
    # forge attestations, the MCP SDK and jsonschema for /mcp, h2 for the mock APNs server,
    # Playwright for the browser tests, prometheus_client's parser for /metrics, json5 for the
    # install script's Gemini CLI files.
    assert any(call.startswith("venv-python -m pip install")
               and call.endswith(" cryptography cbor2 mcp>=2,<3 jsonschema>=4,<5 h2>=4,<5 playwright>=1.40,<2"
                                 " prometheus_client>=0.17,<1 json5>=0.9,<1")
               for call in machine.calls("venv-python"))
    assert (machine.venv / "pytest-installed").exists()
    assert f"building {machine.venv} with pytest" in done.stdout


def test_a_working_venv_is_left_alone(machine):
    machine.healthy_venv()
    done = machine.ensure_deps(venv=True)
    assert done.returncode == 0, done
    assert machine.calls("venv-python") == ["venv-python -c import pytest, cryptography, cbor2, mcp, jsonschema, h2, playwright, prometheus_client, json5"]
    assert not any(" -m venv " in call for call in machine.calls("python3"))
    assert done.stdout == ""


def test_a_venv_whose_python_does_not_run_is_made_again(machine):
    # What a venv looks like after the python it was made with went away.
    (machine.venv / "bin").mkdir(parents=True)
    (machine.venv / "bin" / "python").symlink_to(machine.root / "gone" / "python3.11")
    (machine.venv / "leftover").touch()
    done = machine.ensure_deps(venv=True)
    assert done.returncode == 0, done
    assert not (machine.venv / "leftover").exists()
    assert (machine.venv / "pytest-installed").exists()


def test_a_venv_without_pytest_is_made_again(machine):
    machine.healthy_venv()
    (machine.venv / "pytest-installed").unlink()
    assert machine.ensure_deps(venv=True).returncode == 0
    assert f"python3 -m venv {machine.venv}" in machine.calls("python3")
    assert (machine.venv / "pytest-installed").exists()


def test_a_failed_pip_install_says_so(machine):
    machine.failing("pip")
    done = machine.ensure_deps(venv=True)
    line = plain_line(done)
    assert done.returncode == 1
    assert line.startswith(f"ensure-deps: pip could not install pytest into {machine.venv}")
    assert "-m pip install 'pytest" in line


def test_python_without_venv_module_gets_python3_venv_installed(machine):
    machine.missing("python3-venv")
    done = machine.ensure_deps("curl", venv=True)
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install curl python3-venv"]
    assert (machine.venv / "pytest-installed").exists()


def test_python_without_venv_module_despite_python3_venv_stops_with_one_line(machine):
    machine.python_without_venv()
    done = machine.ensure_deps(venv=True)
    line = plain_line(done)
    assert done.returncode == 1
    assert line == ("ensure-deps: python3 has no venv module; install it with: apt-get install python3-venv "
                    "(or set PYTHON to a Python 3 that has it)")
    assert machine.calls("apt-get") == []
    assert not machine.venv.exists()


def test_a_non_root_user_is_told_to_use_sudo_for_python3_venv(machine):
    machine.set_uid(1000).python_without_venv()
    line = plain_line(machine.ensure_deps(venv=True))
    assert "install it with: sudo apt-get install python3-venv" in line


def test_python3_venv_that_cannot_be_installed_names_it(machine):
    machine.missing("python3-venv").failing("install")
    line = plain_line(machine.ensure_deps(venv=True))
    assert line == ("ensure-deps: could not install python3-venv; install with: "
                    "apt-get update && apt-get install python3-venv")


def test_no_python3_at_all_installs_python3_venv_which_brings_it(machine):
    machine.without("python3").missing("python3-venv")
    done = machine.ensure_deps(venv=True)
    # The stand-in apt-get cannot put a python3 on PATH, so the venv step then stops.
    assert machine.apt_calls() == ["update", "install python3-venv"]
    assert "python3 has no venv module" in plain_line(done)


def test_a_python_named_in_PYTHON_that_is_not_there_stops_with_one_line(machine):
    done = machine.ensure_deps(venv=True, python="python3.99")
    assert plain_line(done) == "ensure-deps: PYTHON=python3.99 is not on PATH; unset PYTHON to use python3"
    assert machine.calls("apt-get") == []
