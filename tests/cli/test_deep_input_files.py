"""Input files nested deeper than Python's JSON parser reads (issue 39, section 6): ``run FILE``, ``baseline check
FILE`` and ``record --send FILE`` say so in one sentence and exit 2 (unusable input), where a RecursionError's
traceback ended them. No server is started: the file is refused first."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import cli

from inspector.core.exits import EXIT_BAD_INPUT

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.report("faults", "run, baseline check and record --send: a file of JSON nested 100,000 deep",
                    surface="CLI", group="hostile", advice="The file is not a usable collection, baseline or "
                                                           "--send file; write it anew.")
def test_a_file_nested_too_deep_is_one_sentence_and_exit_2(tmp_path: Path, report) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    for command in (["run", str(path)], ["baseline", "check", str(path)],
                    ["record", "--out", str(tmp_path / "c.jsonl"), "--send", str(path)]):
        done = cli(*command, "--", "true-but-never-started")
        assert done.returncode == EXIT_BAD_INPUT, (command, done.stderr)
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
        assert "deep.json" in done.stderr and "nested too deep to read" in done.stderr, done.stderr
    report.saw(done.stderr.strip())
