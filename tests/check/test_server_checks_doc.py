"""docs/server-checks.md is what scripts/server_checks.py writes from the check table, and every check's quoted
spec sentence is in the spec text it names."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT

from inspector.core.check.checks import CHECKS, MUST, normalize_spec_text

SPEC = ROOT.parent / "shared" / "mcp-spec"


def test_the_server_checks_doc_is_up_to_date():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "server_checks.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_doc_has_known_results_written_by_hand():
    text = (ROOT / "docs" / "server-checks.md").read_text(encoding="utf-8")
    assert "## Known results" in text
    assert "http-origin" in text.split("## Known results")[1]


@pytest.mark.skipif(not SPEC.is_dir(), reason="the spec extract (../shared/mcp-spec) is not beside this checkout")
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.id)
def test_every_quoted_spec_sentence_is_in_the_spec_text_it_names(check):
    for source in check.sources:
        if source.quote is None:
            continue
        text = normalize_spec_text((SPEC / source.local_path).read_text(encoding="utf-8"))
        assert normalize_spec_text(source.quote) in text, f"{check.id}: not in {source.local_path}"


@pytest.mark.parametrize("check", [c for c in CHECKS if c.level == MUST], ids=lambda c: c.id)
def test_a_must_check_rests_on_a_quoted_must_sentence(check):
    quotes = [s.quote for s in check.sources if s.quote]
    assert quotes and any("MUST" in q for q in quotes), check.id


def test_the_doc_names_no_checkout_path_and_is_the_same_whichever_folder_the_generator_runs_from(tmp_path):
    # the doc is shared: the folder it was generated in (or the spec extract beside it) must not show in it, and
    # the generator must not depend on the folder it is run from
    text = (ROOT / "docs" / "server-checks.md").read_text(encoding="utf-8")
    for folder in (ROOT, ROOT.parent):
        assert str(folder.resolve()) + "/" not in text, f"the doc names the path {folder}"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "server_checks.py"), "--check"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
