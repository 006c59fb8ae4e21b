"""A 50 MB single-line result: recorded byte-exact, shown as a bounded preview at once, and in full ("Show all")
a slice at a time, from a live session's memory or from a capture read a piece at a time."""

from __future__ import annotations

import json

import pytest
import warm_python
from helpers import cli
from PySide6.QtGui import QColor, QTextDocument

from inspector.core.capture import index as index_module
from inspector.core.capture import read_capture
from inspector.core.capture.index import CaptureIndex, PartialEvent
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.clients.profiles import ProfileStore
from inspector.core.present.pretty import FOLD_CHARS, FOLD_MARK, pretty_text, unfold
from inspector.core.wire.events import Direction, Kind
from inspector.core.wire.framing import decode_line
from inspector.demo.tools import _BIG_PATTERN, text_result
from inspector.demo.transport import encode_message
from inspector.ui.app import build_window
from inspector.ui.json_highlighter import COLOURS, JsonHighlighter
from inspector.ui.panels.detail import PREVIEW_TEXT_BYTES, DetailView

BIG = 50 * 1024 * 1024


def big_text(size: int) -> str:
    return (_BIG_PATTERN * (size // len(_BIG_PATTERN) + 1))[:size]


def big_response(size: int, request_id: int = 7) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": [
        {"type": "text", "text": big_text(size) + ' "quoted" \\ é 😀'}]}}, ensure_ascii=False).encode()


def show_all(qtbot, detail: DetailView) -> None:
    detail.show_all.click()
    qtbot.waitUntil(lambda: not detail.formatting, timeout=120_000)


@pytest.mark.integration  # end to end through subprocesses, 7-13 s: CI's second step
def test_a_50_mb_result_of_the_demo_is_recorded_byte_exact_and_read_back_a_piece_at_a_time(tmp_path):
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"method": "tools/call", "params": {"name": "big_message",
                                                                    "arguments": {"size_bytes": BIG}}}) + "\n")
    out = tmp_path / "big.jsonl"
    done = cli("record", "--out", str(out), "--send", str(calls), "--timeout", "120", "--",
               *warm_python.module_command("inspector.demo"), timeout=300)
    assert done.returncode == 0, done.stderr
    events = read_capture(out).events
    answer = next(e for e in events if e.kind == Kind.MESSAGE and e.data.get("request_method") == "tools/call")
    message = json.loads(answer.raw)
    assert message["result"]["content"] == text_result(big_text(BIG))["content"]
    # the demo writes json.dumps(message, separators=(",", ":"), ensure_ascii=False) and a newline: encoding the
    # message again gives exactly what it wrote, and the capture holds exactly that
    assert answer.raw + answer.eol == encode_message(message)
    index = CaptureIndex(out)
    index.scan_all()
    row = index.row_of_seq(answer.seq)
    partial = index.event(row)
    assert isinstance(partial, PartialEvent) and answer.raw.startswith(partial.raw)
    assert partial.rpc.kind == "response" and partial.rpc.id == answer.rpc.id
    assert partial.data == answer.data and abs(partial.size - len(answer.raw)) < len(answer.raw) // 100
    assert b"".join(index.raw_pieces(partial)) == answer.raw
    index.close()


def test_a_big_message_shows_a_bounded_pretty_preview_and_show_all_gives_all_of_it(qtbot):
    raw = big_response(3 * 1024 * 1024)
    event = decode_line(raw, Direction.S2C)
    event.seq = 1
    detail = DetailView()
    qtbot.addWidget(detail)
    detail.show_event(event)
    preview = detail.pretty.toPlainText()
    assert len(preview) < PREVIEW_TEXT_BYTES * 1.2  # bounded: not the 3 MB
    assert preview.startswith('{\n  "jsonrpc": "2.0",\n  "id": 7,\n  "result": {')  # pretty-printed
    assert "showing the first 64 KB" in detail.banner.text() and not detail.show_all.isHidden()
    assert all(len(line) <= FOLD_CHARS + 1 for line in preview.splitlines())
    show_all(qtbot, detail)
    assert json.loads(unfold(detail.pretty.toPlainText())) == json.loads(raw)
    assert unfold(detail.pretty.toPlainText()) == pretty_text(raw).replace(FOLD_MARK + "\n", "")
    assert unfold(detail.raw.toPlainText()) == raw.decode()
    assert f"all {len(raw):,} bytes" in detail.banner.text() and detail.show_all.isHidden()


def test_show_all_of_a_long_capture_line_reads_it_in_pieces_and_gives_the_same_text(qtbot, qapp, tmp_path, settings,
                                                                                    monkeypatch):
    monkeypatch.setattr(index_module, "BIG_LINE_BYTES", 256 * 1024)
    monkeypatch.setattr(index_module, "PIECE_BYTES", 100_003)  # pieces that split escapes and characters
    raw = big_response(2 * 1024 * 1024)
    event = decode_line(raw, Direction.S2C)
    event.seq, event.t = 1, 0.5
    event.put(reply_to=0, latency=0.25, request_method="tools/call")
    path = tmp_path / "big.jsonl"
    with CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]})) as writer:
        writer.write(event)
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "p.json"), captures=tmp_path)
    qtbot.addWidget(window)
    tab = window.open_capture(path)
    qtbot.waitUntil(lambda: not tab.loading, timeout=30_000)
    assert tab.timeline.select_seq(1)
    shown = tab.timeline.current_event()
    assert isinstance(shown, PartialEvent) and len(shown.raw) < len(raw)
    assert "about" in tab.detail.banner.text() and "tools/call" in tab.model.data(tab.model.index(0, 5))
    show_all(qtbot, tab.detail)
    assert json.loads(unfold(tab.detail.pretty.toPlainText())) == json.loads(raw)
    assert unfold(tab.detail.raw.toPlainText()) == raw.decode()
    tab.index.close()


@pytest.mark.parametrize("escaped", [False, True])
def test_a_string_folded_over_many_lines_is_coloured_as_a_string_on_every_line(qapp, escaped):
    text = ("ab\\\"" if escaped else "abcd") * (3 * FOLD_CHARS // 4)
    document = QTextDocument()
    highlighter = JsonHighlighter(document)
    document.setPlainText(pretty_text(json.dumps({"key": text, "n": 1}).encode()))
    highlighter.rehighlight()
    string = QColor(COLOURS["string"][1 if highlighter.dark else 0])
    key = QColor(COLOURS["key"][1 if highlighter.dark else 0])
    blocks = [document.findBlockByNumber(n) for n in range(document.blockCount())]
    folded = [block for block in blocks if block.text().endswith(FOLD_MARK)]
    assert len(folded) >= 2
    for block in folded[1:] + [folded[-1].next()]:  # continuation lines start inside the string
        first = min(block.layout().formats(), key=lambda r: r.start)
        assert first.start == 0 and first.format.foreground().color() == string
    after = next(block for block in blocks if block.text().strip().startswith('"n"'))
    first = min(after.layout().formats(), key=lambda r: r.start)
    assert first.format.foreground().color() == key  # lexed again once the string has closed
