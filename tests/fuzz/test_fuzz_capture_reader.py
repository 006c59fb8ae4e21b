"""Fuzzing the capture reader (inspector/core/capture/reader.py): a capture is a file people share, so it
may be cut short, damaged, or written by hand to break the tools that open it.

The reader's documented contract: ``read_capture`` loads what it can (a cut-off last line and malformed
lines become warnings) or raises :class:`~inspector.core.capture.CaptureError`, whose message is one
sentence; never another exception. What it loads has the types the format promises (docs/capture-format.md).
"""

from __future__ import annotations

import pytest
from capture_strategies import capture, capture_files, read
from fuzz_support import Examples, run_property
from hypothesis import example, given

from inspector.core.capture import CaptureError
from inspector.core.wire.events import Event


@pytest.mark.report("fuzz", "capture reader: damaged and hostile capture files load, or are refused with a "
                            "sentence (CaptureError), never another exception", surface="core")
def test_any_damaged_or_hostile_capture_file_loads_or_is_refused_with_a_sentence(report, tmp_path):
    examples = Examples()
    path = tmp_path / "fuzzed.jsonl"

    # found by this property: fields of the wrong type were loaded, and broke `show` and the timeline
    @example(content=capture('{"seq":1,"kind":"stderr","dir":[],"raw":"x"}'))
    @example(content=capture('{"seq":1,"kind":"lifecycle","reason":[]}'))
    @example(content=capture('{"seq":1,"kind":"note","findings":[{"code":1,"text":[2]}]}'))
    @given(content=capture_files())
    def prop(content: bytes) -> None:
        examples()
        capture = read(path, content)
        if isinstance(capture, CaptureError):
            return
        assert isinstance(capture.header, dict)
        assert all(isinstance(w, str) and w for w in capture.warnings)
        for event in capture.events:
            assert isinstance(event, Event)
            assert isinstance(event.seq, int) and isinstance(event.kind, str)
            assert isinstance(event.raw, bytes) and isinstance(event.eol, bytes)
            assert isinstance(event.t, float) and isinstance(event.wall, float)
            assert event.dir is None or isinstance(event.dir, str), f"dir {event.dir!r}"
            assert event.reason is None or isinstance(event.reason, str), f"reason {event.reason!r}"
            assert all(isinstance(f.code, str) and isinstance(f.text, str) and isinstance(f.severity, str)
                       for f in event.findings), f"findings {event.findings!r}"
            assert isinstance(event.data, dict) or not event.data

    run_property(report, examples, prop)
