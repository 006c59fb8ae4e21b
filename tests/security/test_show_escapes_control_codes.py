"""``show`` never passes control codes from a capture to the terminal (README: "Server text never reaches your
terminal as control codes").

A capture is a file anyone can write: this one carries terminal escape sequences (clear the screen, set the
window title, a hyperlink, a cursor move) in every field ``show`` prints: the header, stderr lines, messages,
a framing error's reason, a finding, an unknown event kind, a note, an HTTP exchange and a lifecycle event.
"""

from __future__ import annotations

import json

import pytest
from helpers import cli

from inspector.core.capture.writer import make_header

ESCAPES = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b]8;;http://evil/\x1b\\", "\x9b6n", "\x1b[1A\r"]
CONTROL = {chr(c) for c in range(0x20) if chr(c) not in "\t\n"} | {chr(0x7F)} | {chr(c) for c in range(0x80, 0xA0)}


def hostile_capture() -> str:
    bad = "".join(ESCAPES)
    events = [
        {"kind": "stderr", "dir": "s2c", "raw": f"log {bad}"},
        {"kind": "message", "dir": "s2c", "raw": json.dumps({"jsonrpc": "2.0", "method": f"m{bad}",
                                                             "params": {"text": bad}})},
        {"kind": "framing_error", "dir": "s2c", "raw": f"junk {bad}", "reason": f"reason {bad}"},
        {"kind": "message", "dir": "s2c", "raw": '{"jsonrpc":"2.0","id":7,"result":{}}',
         "findings": [{"code": "x", "text": f"finding {bad}", "severity": "error"}],
         "data": {"request_method": f"tools/{bad}"}},
        {"kind": f"kind{bad}"},
        {"kind": "note", "data": {"text": f"note {bad}"}},
        {"kind": "http", "data": {"exchange": 1, "method": "POST", "url": f"http://h/{bad}", "status": f"200{bad}",
                                  "reason": bad, "response_headers": {"content-type": bad}, "error": bad}},
        {"kind": "lifecycle", "data": {"what": "spawned", "pid": 1, "argv": [bad], "cwd": bad}},
        {"kind": "lifecycle", "data": {"what": f"w{bad}", "x": bad}},
    ]
    header = make_header({"transport": "stdio", "argv": [f"server{bad}"], "cwd": None, "env": {}},
                         created=f"today{bad}")
    lines = [json.dumps(header)]
    for seq, event in enumerate(events, start=1):
        lines.append(json.dumps({"seq": seq, "t": seq / 10, "wall": 1.7e9, **event}))
    return "\n".join(lines) + "\n"


@pytest.mark.report("security", "show never writes a capture's control codes to the terminal", surface="CLI")
def test_show_prints_a_capture_full_of_terminal_escapes_without_a_single_control_code(tmp_path, report):
    capture = tmp_path / "escapes.jsonl"
    capture.write_text(hostile_capture())
    shown = cli("show", str(capture), timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("\n") >= 9
    found = sorted({f"U+{ord(c):04X}" for c in shown.stdout + shown.stderr if c in CONTROL})
    assert found == [], f"control codes reached the terminal: {found}"
    as_json = cli("show", "--json", str(capture), timeout=60)
    assert as_json.returncode == 0, as_json.stderr
    assert "\x1b" not in as_json.stdout and "\x07" not in as_json.stdout
    report.saw(f"{len(ESCAPES)} escape sequences in every printed field of {shown.stdout.count(chr(10))} lines: "
               "all shown escaped (\\x1b...), none written raw, by show and show --json")
