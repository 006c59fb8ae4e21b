"""Exports and `show` of a capture with intercepted messages (issue 40): each marked message carries its mark's
sentence, and a mark read from a capture (anyone's) is made safe like any server text."""

from __future__ import annotations

import json

from helpers import cli

from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.interop.report import to_html, to_markdown
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_line
from inspector.core.wire.intercepted import MARK, mark

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}}


def message(seq: int, direction: str, obj: dict, found: dict | None = None, **data: object) -> Event:
    event = decode_line(json.dumps(obj).encode(), direction)
    event.seq, event.t, event.eol = seq, seq / 10, b"\n"
    event.put(**data)
    if found is not None:
        event.put(**{MARK: found})
    return event


def events() -> list[Event]:
    changed = {**CALL, "params": {"name": "add", "arguments": {"a": 40}}}
    return [message(1, Direction.C2S, CALL, mark(1, "rewrite", "original")),
            message(2, Direction.C2S, changed, mark(1, "rewrite", "changed")),
            message(3, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {}}, mark(2, "delay", "delayed", ms=800,
                                                                                      arrived=0.1),
                    reply_to=2, latency=0.1, request_method="tools/call")]


HEADER = make_header({"transport": "stdio", "argv": ["server"]})


def test_the_markdown_report_marks_each_intercepted_message():
    text = to_markdown(HEADER, events())
    assert "\\[original, never delivered: rule 1 (rewrite) changed it (the next message went instead)\\]" in text
    assert "\\[changed by rule 1 (rewrite)\\]" in text
    assert "*changed by rule 1 (rewrite)*" in text  # beside the request in the exchanges
    assert "Response #3 after 100 ms (delayed 800 ms by rule 2 (delay)):" in text


def test_the_html_report_marks_each_intercepted_message():
    text = to_html(HEADER, events())
    assert "[changed by rule 1 (rewrite)]" in text
    assert "<p><em>original, never delivered: rule 1 (rewrite) changed it (the next message went instead)</em></p>" \
        in text
    assert "(delayed 800 ms by rule 2 (delay)):</p>" in text


def test_a_hostile_mark_in_a_report_is_escaped():
    hostile = message(1, Direction.C2S, CALL, {"rule": 1, "action": "drop", "role": "dropped",
                                               "name": "<script>x</script>"})
    assert "<script>x" not in to_html(HEADER, [hostile])


def test_show_prints_each_marks_sentence_under_its_message_and_show_json_keeps_the_mark(tmp_path):
    path = tmp_path / "c.jsonl"
    writer = CaptureWriter(path, {**HEADER, "intercept_rules": [{"when": {}, "do": "drop"}, {"do": "delay", "ms": 5}]})
    hostile = message(4, Direction.S2C, {"jsonrpc": "2.0", "method": "notifications/x"},
                      {"rule": 3, "action": "drop", "role": "dropped", "name": "\x1b[31mred"})
    writer.write_many([*events(), hostile])
    writer.close()
    shown = cli("show", str(path))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].endswith(", with 2 intercept rules in force")

    def under(seq: int) -> str:
        """The line under event ``seq``'s line (the mark comes before any finding)."""
        return next(lines[i + 1] for i, line in enumerate(lines) if line.split()[0] == str(seq)).strip()

    assert under(1) == "» original, never delivered: rule 1 (rewrite) changed it (the next message went instead)"
    assert under(2) == "» changed by rule 1 (rewrite)"
    assert under(3) == "» delayed 800 ms by rule 2 (delay)"
    assert "\x1b" not in shown.stdout and 'dropped by rule 3 "\\x1b[31mred" (drop)' in shown.stdout
    records = [json.loads(line) for line in cli("show", "--json", str(path)).stdout.splitlines()]
    assert records[0]["intercept"] == {"rule": 1, "action": "rewrite", "role": "original"}
    assert records[2]["intercepted"] == "delayed 800 ms by rule 2 (delay)"
    assert records[2]["intercept"] == {"rule": 2, "action": "delay", "role": "delayed", "ms": 800, "arrived": 0.1}
