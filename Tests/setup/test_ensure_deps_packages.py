"""scripts/ensure-deps and the Debian packages: exactly the missing ones are installed, with
one `apt-get update` first; nothing runs when nothing is missing; whatever cannot be done ends
in one plain line that names the package and the command to install it."""

from standins import plain_line

PACKAGES = ["libsqlite3-dev", "libssl-dev", "curl"]


def test_installs_only_the_missing_package_after_one_update(machine):
    machine.installed("libsqlite3-dev", "curl")
    done = machine.ensure_deps(*PACKAGES)
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install libssl-dev"]
    assert machine.is_installed("libssl-dev")
    assert "installing libssl-dev" in done.stdout


def test_installs_every_missing_package_in_one_apt_get_call(machine):
    machine.installed("curl")
    done = machine.ensure_deps(*PACKAGES)
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install libsqlite3-dev libssl-dev"]


def test_installs_without_questions(machine):
    machine.installed("libsqlite3-dev", "libssl-dev")
    assert machine.ensure_deps(*PACKAGES).returncode == 0
    [install] = [line for line in machine.calls("apt-get") if " install " in line]
    assert install.startswith("DEBIAN_FRONTEND=noninteractive apt-get install ")
    assert " -y " in install and "--no-install-recommends" in install


def test_nothing_missing_runs_no_apt_get_at_all(machine):
    machine.installed(*PACKAGES)
    done = machine.ensure_deps(*PACKAGES)
    assert done.returncode == 0, done
    assert machine.calls("apt-get") == [] and machine.calls("sudo") == []
    assert done.stdout == "" and done.stderr == ""


def test_a_package_dpkg_has_never_heard_of_counts_as_missing(machine):
    # The old Makefile died right here: `dpkg -s` fails for such a package under `set -e`.
    done = machine.ensure_deps("libnghttp2-dev")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install libnghttp2-dev"]


def test_root_runs_apt_get_without_sudo(machine):
    machine.set_uid(0)
    assert machine.ensure_deps("curl").returncode == 0
    assert machine.calls("sudo") == []
    assert machine.apt_calls() == ["update", "install curl"]


def test_non_root_runs_apt_get_through_sudo(machine):
    machine.set_uid(1000)
    done = machine.ensure_deps("curl")
    assert done.returncode == 0, done
    assert machine.calls("sudo") == [
        "sudo apt-get update -q",
        "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends curl",
    ]
    assert machine.is_installed("curl")


def test_non_root_without_sudo_names_the_package_and_the_root_command(machine):
    machine.set_uid(1000).without("sudo")
    done = machine.ensure_deps("curl", "libssl-dev")
    line = plain_line(done)
    assert done.returncode == 1
    assert "missing curl libssl-dev" in line and "sudo is not installed" in line
    assert "apt-get install curl libssl-dev" in line
    assert machine.calls("apt-get") == []


def test_a_failing_apt_get_names_the_package_and_the_command(machine):
    machine.set_uid(1000).installed("curl").failing("install")
    done = machine.ensure_deps(*PACKAGES)
    line = plain_line(done)
    assert done.returncode == 1
    assert line == ("ensure-deps: could not install libsqlite3-dev libssl-dev; install with: "
                    "sudo apt-get update && sudo apt-get install libsqlite3-dev libssl-dev")


def test_no_network_says_the_update_failed_too(machine):
    machine.failing("update").failing("install")
    done = machine.ensure_deps("curl")
    line = plain_line(done)
    assert "could not install curl (apt-get update failed too)" in line
    assert "apt-get install curl" in line


def test_a_failed_update_alone_does_not_stop_the_install(machine):
    # One unreachable mirror fails the update; the archives may still come from the others.
    machine.failing("update")
    done = machine.ensure_deps("curl")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install curl"]


def test_missing_swift_stops_before_anything_is_installed(machine):
    machine.without("swift")
    done = machine.ensure_deps("curl")
    line = plain_line(done)
    assert done.returncode == 1
    assert line.startswith("ensure-deps: swift is not on PATH; install the Swift 6.3 toolchain")
    assert "https://www.swift.org/install/linux/" in line
    assert machine.calls("apt-get") == []


def test_without_dpkg_query_names_the_packages_to_install_by_hand(machine):
    machine.without("dpkg-query")
    line = plain_line(machine.ensure_deps("curl"))
    assert "dpkg-query is not on PATH" in line and line.endswith("install these yourself: curl")


def test_a_run_with_no_packages_to_check_does_not_need_dpkg(machine):
    machine.without("dpkg-query").healthy_venv()
    assert machine.ensure_deps(venv=True).returncode == 0
