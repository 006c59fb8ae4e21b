"""The app lane of a capture: an app's messages and what happened to it are saved as ``app`` events and read
back the same, by the reader and by the index the window uses; the timeline's filter shows them whatever the
direction switches say; ``show`` prints them with their own arrows and labels, and pairs an answer with its
request."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT

from inspector.core.capture import read_capture
from inspector.core.capture.columns import category_of, category_table
from inspector.core.capture.index import CaptureIndex
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.present.describe import event_record, format_event, label
from inspector.core.wire import app_lane as lane
from inspector.core.wire.events import Direction, Event, Finding, Kind


def lane_events() -> list[Event]:
    request = lane.message_event(Direction.A2H, b'{"jsonrpc":"2.0","id":0,"method":"ui/initialize","params":{}}', 1)
    answer = lane.message_event(Direction.H2A, b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2026-01-26"}}',
                                1, reply_to=1, latency=0.002, request_method="ui/initialize")
    blocked = lane.happening(lane.BLOCKED, 1, findings=[Finding("app-blocked", "the app tried to reach x", "warning")],
                             url="http://127.0.0.1:9/x", use="connect-src", by="browser", reason="not allowed")
    events = [request, answer, blocked, lane.happening(lane.CLOSED, 1, reason="done")]
    for seq, event in enumerate(events, 1):
        event.seq, event.t, event.wall = seq, seq / 10, 1_700_000_000 + seq
    return events


def written(tmp_path) -> tuple:
    path = tmp_path / "app.jsonl"
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]}))
    events = lane_events()
    writer.write_many(events)
    writer.close()
    return path, events


def test_app_events_read_back_exactly_as_they_were_written(tmp_path):
    path, events = written(tmp_path)
    back = read_capture(path).events
    assert back == events
    assert back[0].rpc.method == "ui/initialize" and back[1].rpc.kind == "response"
    line = json.loads(path.read_text(encoding="utf-8").splitlines()[1])
    assert line["kind"] == "app" and line["dir"] == "a2h" and "eol" not in line, "a lane message has no terminator"
    happening = json.loads(path.read_text(encoding="utf-8").splitlines()[3])
    assert "raw" not in happening and happening["data"]["what"] == "blocked"


def test_the_index_pairs_the_answer_with_its_request_and_the_filter_shows_the_lane(tmp_path):
    path, events = written(tmp_path)
    index = CaptureIndex(path)
    try:
        index.scan_all()
        columns = index.columns
    finally:
        index.close()
    assert [columns.method_names[m] for m in columns.methods] == ["ui/initialize", "ui/initialize", "", ""]
    assert columns.partners[0] == 1 and columns.partners[1] == -1
    only_wire = category_table(directions=(Direction.C2S,), show_stderr=False, show_transport=False)
    assert all(only_wire[category_of(event)] for event in events), "the app lane has no wire direction to hide"
    problems = category_table(problems_only=True)
    assert [bool(problems[category_of(e)]) for e in events] == [False, False, True, False]


def test_the_lane_has_its_own_arrows_and_labels():
    request, answer, blocked, closed = lane_events()
    assert [label(e) for e in (request, answer, blocked, closed)] == ["app request", "app response", "app blocked",
                                                                      "app closed"]
    assert "⇒" in format_event(request) and "⇐" in format_event(answer)
    assert "blocked by the browser (its CSP): connect-src http://127.0.0.1:9/x" in format_event(blocked)
    record = event_record(answer)
    assert record["raw"].startswith('{"jsonrpc"') and record["data"]["reply_to"] == 1


def test_show_prints_the_lane_as_text_and_as_json(tmp_path):
    path, _ = written(tmp_path)
    text = subprocess.run([sys.executable, "-m", "inspector", "show", str(path)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()[1:]
    assert "⇒" in lines[0] and "app request" in lines[0] and "ui/initialize #0" in lines[0]
    assert "2.0 ms" in lines[1], "the answer shows its latency"
    assert "app closed" in lines[-1]
    as_json = subprocess.run([sys.executable, "-m", "inspector", "show", "--json", str(path)], capture_output=True,
                             text=True, timeout=60, cwd=ROOT)
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [r["kind"] for r in records] == [Kind.APP] * 4 and records[2]["data"]["url"] == "http://127.0.0.1:9/x"


def test_a_request_an_app_caused_names_the_app_and_its_request_row():
    from inspector.core.wire.framing import decode_line

    caused = decode_line(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"poll"}}', "c2s")
    caused.put(app=1, app_request=33)
    plain = decode_line(b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"poll"}}', "c2s")
    assert format_event(caused).endswith('[app 1, row 33] {"name":"poll"}')
    assert format_event(plain).endswith(' {"name":"poll"}') and "[app" not in format_event(plain)
