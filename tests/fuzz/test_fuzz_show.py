"""Fuzzing what `show` prints from a capture (inspector/core/present/describe.py, shared with the window's timeline): a
capture may come from anyone, so its events, whatever their ``data`` holds, are described without an
exception, and nothing in them reaches the terminal as a control sequence (describe.py's promise).
"""

from __future__ import annotations

import json

import pytest
from capture_strategies import capture, capture_files, read
from fuzz_support import Examples, run_property
from hypothesis import example, given

from inspector.cli.show_cmd import describe_header
from inspector.core.capture import CaptureError
from inspector.core.present.describe import event_record, format_event

#: What a terminal may act on: C0 controls (ESC starts every escape sequence) but tab and newline, DEL, C1.
CONTROL = (set(range(0x00, 0x20)) - {0x09, 0x0A}) | set(range(0x7F, 0xA0))


@pytest.mark.report("fuzz", "show: every event of any capture the reader loads is printed (timeline and --json) "
                            "without an exception or a terminal control character", surface="CLI")
def test_show_prints_every_event_of_any_loadable_capture_without_raising_or_control_characters(report, tmp_path):
    examples = Examples()
    path = tmp_path / "fuzzed.jsonl"

    # found by this property (each raised, or reached the terminal, before describe.py was fixed)
    @example(content=capture('{"seq":1,"kind":"http","data":{"exchange":1,"method":"POST","timing":5}}'))
    @example(content=capture('{"seq":1,"kind":"http","data":{"status":200,"response_headers":[]}}'))
    @example(content=capture('{"seq":1,"kind":"lifecycle","data":{"what":"spawned","argv":5}}'))
    @example(content=capture('{"seq":1,"kind":"message","dir":"s2c","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"result\\":1}",'
                             '"data":{"request_method":5}}'))
    @example(content=capture('{"seq":1,"kind":"http","data":{"x":{"body_b64":"QQ=="}}}'))
    @example(content=capture('{"seq":1,"kind":"message","dir":"s2c","raw":"%s"}' % ("[" * 5000)))
    @example(content=capture('{"seq":1,"kind":"framing_error","dir":"s2c","raw":"x","reason":"\\u001b[2J"}'))
    @example(content=capture('{"seq":1,"kind":"note","findings":[{"code":"c","text":"\\u001b]0;pwned\\u0007"}]}'))
    @example(content=capture('{"seq":1,"kind":"\\u001b[31mred"}'))
    @given(content=capture_files())
    def prop(content: bytes) -> None:
        examples()
        capture = read(path, content)
        if isinstance(capture, CaptureError):
            return
        printed = [describe_header(capture.header)]
        for event in capture.events:
            printed.append(format_event(event))
            json.dumps(event_record(event), ensure_ascii=False)  # --json escapes C0 controls itself
        for line in printed:
            bad = sorted({hex(ord(c)) for c in line if ord(c) in CONTROL})
            assert not bad, f"control characters {bad} in {line!r}"

    run_property(report, examples, prop)
