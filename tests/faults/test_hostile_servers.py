"""Hostile servers (issue 26, points 3 and 5): schemas, patterns, icons and images made to hang the inspector,
freeze the window, exhaust its memory or end in a traceback. Each case ends with one sentence (or the work
done) within a bound, on the surface where it was found: the CLI as a real ``mcp-inspector`` process, the
window as the real MainWindow, offscreen. The server is servers/stdio_hostile.py, a copy of the cases of the
adversarial pass.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from integration.integration_support import run_inspector

from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK

pytestmark = [pytest.mark.integration]

HOSTILE = Path(__file__).resolve().parent / "servers" / "stdio_hostile.py"
#: a CLI case that is not hung ends well within this (a start, a handshake, a listing, a call)
CLI_BOUND = 30.0
#: what the pattern cases pass as --timeout: the hang was never a wait on the server, so this is not what ends it
TIMEOUT = "5"
ADVICE_SCHEMA = ("Nothing to change on your side: the server's inputSchema is at fault; tell its authors (the "
                 "call itself was still made).")


def hostile(*mode: str) -> list[str]:
    return [sys.executable, str(HOSTILE), *mode]


def call(tmp_path: Path, tool: str, *words: str, server: list[str]) -> tuple[object, float]:
    """``mcp-inspector call TOOL WORDS -- SERVER`` as a user runs it, bounded; (the run, its seconds)."""
    started = time.monotonic()
    done = run_inspector(["call", tool, *words, "--timeout", TIMEOUT, "--out", str(tmp_path / "call.jsonl"), "--",
                          *server], timeout=CLI_BOUND, capture_file=tmp_path / "call.jsonl")
    return done, time.monotonic() - started


def stderr_lines(done) -> list[str]:
    assert "Traceback" not in done.stderr, done.stderr
    return [line for line in done.stderr.splitlines() if line.strip()]


# -- point 3: a tool's pattern that backtracks without end --------------------------------------------------


@pytest.mark.report("faults", "a tool whose pattern backtracks without end (^(.+)+#$, 44 characters)",
                    surface="CLI", group="hostile",
                    advice="Nothing to change: the argument is checked against the server's pattern in bounded time.")
def test_a_pattern_that_backtracks_without_end_is_decided_at_once_on_the_cli(tmp_path, report):
    # Python's re never ends on this (2^44 ways to split the string); the regex module decides it at once
    done, seconds = call(tmp_path, "r", "s=" + "a" * 44, server=hostile("redos", "^(.+)+#$"))
    lines = stderr_lines(done)
    report.saw(lines[0].removeprefix("mcp-inspector: ") + " " + lines[1].strip(), seconds=seconds)
    assert done.returncode == EXIT_BAD_INPUT, done.stderr
    assert lines[1].strip() == f'arguments.s must match the pattern ^(.+)+#$, it is the string "{"a" * 44}"'
    assert seconds < CLI_BOUND / 2


@pytest.mark.report("faults", "a tool whose pattern cannot be decided in time ((a|aa)+$)", surface="CLI",
                    group="hostile", advice=ADVICE_SCHEMA)
def test_a_pattern_that_cannot_be_decided_in_time_is_a_note_and_the_call_is_made(tmp_path, report):
    # the regex module backtracks on this one too: its budget runs out, the note says so, the server judges
    done, seconds = call(tmp_path, "r", "s=" + "a" * 60 + "b", server=hostile("redos", "(a|aa)+$"))
    lines = stderr_lines(done)
    report.saw(lines[0], seconds=seconds)
    assert done.returncode == EXIT_OK, done.stderr
    assert lines == ['mcp-inspector: note: the server\'s pattern (a|aa)+$ took too long to check against the string '
                     f'"{"a" * 39}…"; not checked'], lines
    assert '"ok"' in done.stdout
    assert seconds < CLI_BOUND / 2


# -- point 5: schemas that refer to themselves or nest too deep ---------------------------------------------


SELF_NOTE = ("mcp-inspector: note: the schema refers to itself without end or nests too deep to check: "
             "arguments could not be checked against it")


@pytest.mark.report("faults", "a tool whose inputSchema refers to itself ({\"type\":\"object\",\"$ref\":\"#\"})",
                    surface="CLI", group="hostile", advice=ADVICE_SCHEMA)
def test_a_schema_that_refers_to_itself_is_a_note_not_a_traceback(tmp_path, report):
    done, seconds = call(tmp_path, "selfobj", server=hostile("refcycle"))
    lines = stderr_lines(done)
    report.saw(lines[0], seconds=seconds)
    assert done.returncode == EXIT_OK, done.stderr
    assert lines == [SELF_NOTE], lines
    assert '"ok"' in done.stdout


@pytest.mark.parametrize("tool", ["self", "pair"])
def test_schemas_that_refer_to_themselves_through_others_are_the_same_note(tmp_path, tool):
    done, _seconds = call(tmp_path, tool, server=hostile("refcycle"))
    assert done.returncode == EXIT_OK, done.stderr
    assert stderr_lines(done) == [SELF_NOTE]


@pytest.mark.report("faults", "a tool whose inputSchema nests 100 levels deep", surface="CLI", group="hostile",
                    advice=ADVICE_SCHEMA)
def test_a_schema_100_levels_deep_is_a_note_not_a_traceback(tmp_path, report):
    done, seconds = call(tmp_path, "deep", "a.a.a=x", server=hostile("deepschema", "100"))
    lines = stderr_lines(done)
    report.saw(lines[0], seconds=seconds)
    assert done.returncode == EXIT_OK, done.stderr
    assert lines == [SELF_NOTE], lines
