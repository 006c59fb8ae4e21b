"""docs/protocol-checks.md is the rule table, exactly: it fails when a rule changed and the page was not
regenerated (python scripts/protocol_checks.py)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from inspector.core.protocol.rules import RULES

DOC = ROOT / "docs" / "protocol-checks.md"


def test_the_protocol_checks_page_is_what_the_generator_writes_now():
    done = subprocess.run([sys.executable, "scripts/protocol_checks.py", "--check"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_every_rule_has_a_row_with_its_level_and_link():
    text = DOC.read_text(encoding="utf-8")
    for rule in RULES:
        assert f"| `{rule.id}` | {rule.level} |" in text and rule.link in text
