"""``mcp-inspector show --json``: one JSON object per event, non-ASCII text kept readable, and nothing a
terminal would act on (C0 and C1 control characters come out escaped)."""

from __future__ import annotations

import json

from helpers import cli

from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.wire.events import Direction, Event, Kind


def test_show_json_escapes_c1_controls_and_keeps_other_text_readable(tmp_path):
    path = tmp_path / "c.jsonl"
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]}))
    line = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\u009b31mred é \u001b[0m"}}'
    writer.write_many([Event(Kind.STDERR, raw=line.encode(), dir=Direction.S2C, eol=b"\n", seq=1)])
    writer.close()
    shown = cli("show", "--json", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "\u009b" not in shown.stdout and "\u001b" not in shown.stdout
    assert "é" in shown.stdout
    [record] = [json.loads(row) for row in shown.stdout.splitlines()]
    assert "\u009b31mred" in json.dumps(record, ensure_ascii=False)
