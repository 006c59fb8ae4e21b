"""``load`` against wave three's hostile servers (tests/data/hostile/loadsrv.py, issue 39 section 6): a server
that stops reading its stdin ends the run with a sentence and the figures so far (not a traceback), Ctrl-C
gives the figures so far, and a run in which nothing was answered says so instead of a latency of 0.00."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.exits import EXIT_DIFFERENT, EXIT_INTERRUPTED
from inspector.core.load.stats import NO_ANSWER, LoadStats, latency_text

LOADSRV = [sys.executable, str(ROOT / "tests" / "data" / "hostile" / "loadsrv.py")]


def test_a_run_in_which_nothing_was_answered_has_no_latency_to_give() -> None:
    stats = LoadStats()
    stats.failed(NO_ANSWER, "no answer within 1 s")
    figures = stats.result(elapsed=1.0, concurrency=1)
    assert figures["answered"] == 0
    assert figures["latency_ms"] == dict.fromkeys(("min", "p50", "p90", "p99", "max", "mean"))  # null: no latency
    assert latency_text(figures) == "latency: none, since no request was answered"
    stats.latencies.append(0.002)
    assert latency_text(stats.result(elapsed=1.0, concurrency=1)).startswith("latency ms: min 2.00  p50 2.00")


@pytest.mark.integration
@pytest.mark.report("faults", "load --concurrency 100000: the server stops reading its stdin (loadsrv.py slow)",
                    surface="CLI", group="hostile",
                    advice="Lower --concurrency: the server could not take that many requests at once.")
def test_a_server_that_stops_reading_ends_the_run_with_a_sentence_and_the_figures_so_far(tmp_path: Path,
                                                                                         report) -> None:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    done = cli("load", "w", "--concurrency", "100000", "--requests", "100000", "--format", "json", "--out",
               str(tmp_path / "load.jsonl"), "--", *LOADSRV, "slow", timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_DIFFERENT, done.stderr
    assert "Traceback" not in done.stderr
    figures = json.loads(done.stdout)
    assert figures["stopped"].startswith("the server stopped reading its stdin"), figures
    assert figures["requests"] == 100_000 and figures["error_kinds"]["no_answer"] > 0
    sentence = done.stderr.strip().splitlines()[-1]
    assert sentence.startswith("mcp-inspector: the run stopped after ") and "figures above" in sentence, sentence
    report.saw(sentence, seconds=elapsed)


@pytest.mark.integration
@pytest.mark.report("faults", "load interrupted with Ctrl-C (SIGINT) during a run", surface="CLI", group="hostile",
                    advice="Nothing to do: the figures gathered until the interruption are printed.")
def test_ctrl_c_prints_the_figures_so_far_and_exits_130(tmp_path: Path, report) -> None:  # type: ignore[no-untyped-def]
    process = subprocess.Popen([sys.executable, "-m", "inspector", "load", "w", "--duration", "120", "--out",
                                str(tmp_path / "load.jsonl"), "--", *LOADSRV, "slow"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the progress line once answers came (a line a second when not a terminal)
            if " requests " in line and "no answer yet" not in line:
                break
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert lines[0].startswith("tools/call w: ") and lines[2].startswith("latency ms: min "), out
    sentence = err.strip().splitlines()[-1]
    assert sentence.startswith("mcp-inspector: interrupted after ") and "the figures so far are above" in sentence
    report.saw(sentence)
