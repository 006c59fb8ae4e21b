"""A HAR whose timings are NaN or Infinity (Python's json reads them; some tools write them) imports into a
capture whose every line our own reader and ``show`` read back (issue 26, point 2: `import` wrote
``"t": inf`` and ``show`` skipped that line)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.interop.har import events_from_har
from inspector.core.wire.events import Kind

HAR = ROOT / "tests" / "data" / "hostile" / "har-infinity-timing.har"  # "time": NaN, "timings": {"wait": Infinity}


def test_a_har_timing_that_is_not_a_finite_number_is_taken_as_not_given():
    _, batches = events_from_har(json.loads(HAR.read_text()))
    walls = [wall for _, wall in batches]
    heads = [e for batch, _ in batches for e in batch if e.kind == Kind.HTTP]
    assert all(abs(wall) < 1e12 for wall in walls), walls
    assert heads[0].data["timing"] == {}  # NaN total and Infinity wait: neither is a duration
    assert heads[1].data["timing"] == {"first_byte": 0.003, "total": 0.005}


@pytest.mark.report("faults", "a HAR with an Infinity timing, imported and then shown", surface="CLI",
                    group="capture", advice="Nothing to do: the timing that is not a number is left out.")
def test_import_of_a_har_with_an_infinity_timing_writes_a_capture_show_reads_whole(tmp_path: Path, report):
    har = tmp_path / "inf.har"
    shutil.copy(HAR, har)
    out = tmp_path / "inf.jsonl"
    started = time.monotonic()
    imported = cli("import", "--out", str(out), str(har))
    assert imported.returncode == 0, imported.stderr
    shown = cli("show", str(out))
    elapsed = time.monotonic() - started
    assert shown.returncode == 0, shown.stderr
    assert "skipped" not in shown.stderr and "warning" not in shown.stderr, shown.stderr
    capture = read_capture(out)
    assert capture.warnings == []
    assert len(capture.events) == 6
    assert [line.split()[0] for line in shown.stdout.splitlines()[1:] if line[:6].strip().isdigit()] \
        == [str(n) for n in range(1, 7)]
    report.saw(f"{imported.stdout.strip().replace(str(tmp_path) + '/', '')}; show lists all "
               f"{len(capture.events)} of them, none skipped", seconds=elapsed)
