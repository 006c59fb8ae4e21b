"""Every conformance id a check names (``Check.conformance``) is a check id the official conformance suite
emits, read from the suite itself as npm installs it (tests/npm_servers.py)."""

from __future__ import annotations

import re
import subprocess

import pytest
from npm_servers import install_conformance

from inspector.core.check.checks import CHECKS

pytestmark = pytest.mark.npm


@pytest.fixture(scope="module")
def suite() -> tuple[str, str]:
    """The suite's bundled source, and what ``conformance list`` prints."""
    node, entry = install_conformance()
    listed = subprocess.run([str(node), str(entry), "list"], capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert listed.returncode == 0, listed.stderr
    return entry.read_text(encoding="utf-8"), listed.stdout


def suite_check_ids(source: str) -> set[str]:
    """The ids the suite's checks are emitted with: ``id:`X``` in a check record, or the first argument of the
    stateless scenario's check helper (``a(`sep-2575-...`,`ServerImplementsDiscover`,...)``)."""
    ids = set(re.findall(r"\bid:`([a-z0-9][a-z0-9-]*)`", source))
    ids |= set(re.findall(r"\(`([a-z0-9][a-z0-9-]*)`,`[A-Z][A-Za-z0-9]*`,", source))
    return ids


@pytest.mark.parametrize("check", [c for c in CHECKS if c.conformance], ids=lambda c: c.id)
def test_every_conformance_id_a_check_names_is_a_check_id_of_the_suite(check, suite):
    source, _ = suite
    missing = set(check.conformance) - suite_check_ids(source)
    assert not missing, f"{check.id} names ids the suite does not emit: {sorted(missing)}"


def test_the_suite_is_the_one_read_and_some_checks_match_it(suite):
    # a guard on the reading itself: the suite's server scenarios are listed, and its ids were found
    source, listed = suite
    assert "server-initialize" in listed and "dns-rebinding-protection" in listed
    assert len(suite_check_ids(source)) > 100
    assert sum(1 for c in CHECKS if c.conformance) >= 5
    assert all(len(set(c.conformance)) == len(c.conformance) for c in CHECKS)
