"""tests/npm_servers.py installs the npm packages a group at a time, each group into a node_modules of its own,
by one npm install: npm rewrites the shared part of the tree it installs into, and a server-everything started
while another worker installed server-filesystem into the same tree failed with ERR_MODULE_NOT_FOUND (its SDK
moved under it)."""

from __future__ import annotations

import npm_servers
import pytest
from npm_servers import APP_SERVER_PACKAGES, EVERYTHING_PACKAGE, FILESYSTEM_PACKAGE, GROUPS, group_of, install_command


def test_the_servers_the_tests_run_are_installed_together_by_one_npm_install():
    servers = [EVERYTHING_PACKAGE, FILESYSTEM_PACKAGE, *APP_SERVER_PACKAGES.values()]
    assert {group_of(package) for package in servers} == {"servers"}
    command = install_command("npm", "servers")
    assert [word for word in command if word.startswith("@")] == [f"{p}@{v}" for p, v in GROUPS["servers"].items()]
    assert len(GROUPS["servers"]) == len(servers)


def test_every_package_is_in_exactly_one_group_with_a_folder_of_its_own():
    packages = [package for group in GROUPS.values() for package in group]
    assert len(packages) == len(set(packages))
    prefixes = [install_command("npm", group)[install_command("npm", group).index("--prefix") + 1] for group in GROUPS]
    assert len(set(prefixes)) == len(GROUPS)


def test_a_test_that_runs_an_npm_package_without_the_npm_mark_fails_with_a_sentence(request):
    # the README's quick loop deselects npm tests: four modules ran server-everything unmarked and so installed it
    assert npm_servers.running_test is request.node  # this test, which is not marked npm
    with pytest.raises(pytest.fail.Exception, match="is not marked npm: add pytest.mark.npm"):
        npm_servers.install_everything()
