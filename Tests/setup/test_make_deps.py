"""`make deps` and `make bench-deps` through the set-up script, on the stand-in machine: the
bar of issue 5. Any one of the Makefile's packages missing is installed and the run goes on;
an install that fails stops the run with the package's name; nothing missing runs no apt-get."""

import pytest

from standins import makefile_list, plain_line

APT_PACKAGES = makefile_list("APT_PACKAGES")
BENCH_APT_PACKAGES = makefile_list("BENCH_APT_PACKAGES")
BROWSER_APT_PACKAGES = makefile_list("BROWSER_APT_PACKAGES")
TEST_APT_PACKAGES = makefile_list("TEST_APT_PACKAGES")
PACKAGE_APT_PACKAGES = makefile_list("PACKAGE_APT_PACKAGES")


def test_the_makefile_names_the_packages_the_build_and_tests_need():
    # openssl: the TLS and APNs unit tests make certificates and keys and verify signatures with it.
    assert {"libsqlite3-dev", "libssl-dev", "libnghttp2-dev", "curl", "systemd", "openssl"} <= set(APT_PACKAGES)


@pytest.mark.parametrize("package", APT_PACKAGES)
def test_make_deps_installs_the_one_missing_package(machine, package):
    machine.installed(*APT_PACKAGES).missing(package).healthy_venv()
    done = machine.make("deps")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", f"install {package}"]


@pytest.mark.parametrize("package", APT_PACKAGES)
def test_make_deps_stops_naming_the_package_apt_get_could_not_install(machine, package):
    machine.installed(*APT_PACKAGES).missing(package).healthy_venv().failing("install")
    done = machine.make("deps")
    assert done.returncode != 0
    line = plain_line(done, last=False)
    assert f"could not install {package};" in line and f"apt-get install {package}" in line


def test_make_deps_with_everything_installed_runs_no_apt_get(machine):
    machine.installed(*APT_PACKAGES).healthy_venv()
    done = machine.make("deps")
    assert done.returncode == 0, done
    assert machine.calls("apt-get") == [] and machine.calls("sudo") == []
    assert done.stdout == "" and done.stderr == ""


def test_make_deps_as_a_user_goes_through_sudo(machine):
    machine.set_uid(1000).installed(*APT_PACKAGES).missing("curl").healthy_venv()
    assert machine.make("deps").returncode == 0
    assert [call.split(" apt-get ")[-1] for call in machine.calls("sudo")] == [
        "update -q", "install -y -q --no-install-recommends curl"]


def test_make_deps_builds_a_missing_venv_with_the_makefiles_python(machine):
    machine.installed(*APT_PACKAGES)
    done = machine.make("deps", "PYTHON=python3")
    assert done.returncode == 0, done
    assert (machine.venv / "pytest-installed").exists()


def test_make_deps_without_swift_stops_with_one_line(machine):
    machine.installed(*APT_PACKAGES).healthy_venv().without("swift")
    done = machine.make("deps")
    assert "swift is not on PATH" in plain_line(done, last=False)


def test_make_bench_deps_installs_both_lists_after_one_update(machine):
    machine.installed(*APT_PACKAGES).missing("curl").healthy_venv()
    done = machine.make("bench-deps")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install curl " + " ".join(BENCH_APT_PACKAGES)]


def test_make_test_deps_installs_chromium_with_the_build_packages_after_one_update(machine):
    # The browser tests (Tests/browser) drive Debian's chromium; `make test` installs it.
    assert BROWSER_APT_PACKAGES == ["chromium"]
    machine.installed(*APT_PACKAGES, *TEST_APT_PACKAGES).missing("curl").missing("chromium").healthy_venv()
    done = machine.make("test-deps")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install curl chromium"]


def test_make_test_deps_installs_postgresql_for_the_client_tests(machine):
    # The PostgreSQL client's tests run Debian's initdb and postgres (Tests/TestSupport/PostgresCluster.swift).
    assert TEST_APT_PACKAGES == ["postgresql"]
    machine.installed(*APT_PACKAGES, *BROWSER_APT_PACKAGES).missing("postgresql").healthy_venv()
    done = machine.make("test-deps")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install postgresql"]


def test_make_deps_alone_never_installs_chromium_or_postgresql(machine):
    machine.installed(*APT_PACKAGES).missing("chromium").missing("postgresql").healthy_venv()
    done = machine.make("deps")
    assert done.returncode == 0, done
    assert machine.calls("apt-get") == []


def test_make_package_deps_installs_lintian_and_debootstrap_when_they_are_missing(machine):
    # `make package-test` (run by .ci/run) checks the .deb with lintian in a debootstrap root.
    assert PACKAGE_APT_PACKAGES == ["lintian", "debootstrap"]
    machine.installed(*APT_PACKAGES).missing("lintian").missing("debootstrap").healthy_venv()
    done = machine.make("package-deps")
    assert done.returncode == 0, done
    assert machine.apt_calls() == ["update", "install lintian debootstrap"]
