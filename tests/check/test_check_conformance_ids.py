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


#: a check id as the suite writes it: a template literal of lower-case words and hyphens, `${...}` standing for
#: a part filled in at run time (``sep-2575-http-server-method-not-found-404-${t}``: one id per method)
TEMPLATE = re.compile(r"`((?:sep-\d+|[a-z][a-z0-9]*)-(?:[a-z0-9-]|\$\{[^`{}]*\})+)`")


def suite_check_ids(source: str) -> tuple[set[str], list[re.Pattern[str]]]:
    """The ids the suite's checks are emitted with: each literal one, and for each id built at run time a pattern
    (its fixed parts, the filled-in parts one or more words)."""
    literal = set(re.findall(r"\bid:`([a-z0-9][a-z0-9-]*)`", source))  # one-word ids too (``ping``)
    built: list[re.Pattern[str]] = []
    for text in set(TEMPLATE.findall(source)):
        if "${" not in text:
            literal.add(text)
        else:
            parts = re.split(r"\$\{[^}]*\}", text)
            built.append(re.compile("[a-z0-9-]+".join(re.escape(part) for part in parts) + "$"))
    return literal, built


def emitted(check_id: str, ids: tuple[set[str], list[re.Pattern[str]]]) -> bool:
    literal, built = ids
    return check_id in literal or any(pattern.match(check_id) for pattern in built)


@pytest.mark.parametrize("check", [c for c in CHECKS if c.conformance], ids=lambda c: c.id)
def test_every_conformance_id_a_check_names_is_a_check_id_of_the_suite(check, suite):
    source, _ = suite
    ids = suite_check_ids(source)
    missing = {check_id for check_id in check.conformance if not emitted(check_id, ids)}
    assert not missing, f"{check.id} names ids the suite does not emit: {sorted(missing)}"


def test_the_suite_is_the_one_read_and_some_checks_match_it(suite):
    # a guard on the reading itself: the suite's server scenarios are listed, and its ids were found
    source, listed = suite
    assert "server-initialize" in listed and "dns-rebinding-protection" in listed
    literal, built = suite_check_ids(source)
    assert len(literal) > 100 and built
    assert not emitted("sep-2575-no-such-check", (literal, built)), "a made-up id is not found"
    assert sum(1 for c in CHECKS if c.conformance) >= 5
    assert all(len(set(c.conformance)) == len(c.conformance) for c in CHECKS)
