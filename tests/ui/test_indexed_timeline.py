"""An opened capture's timeline (over a capture index) shows what the in-memory timeline shows: the same
cells, the same rows through every filter, also while the file is still being loaded in slices."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester

from inspector.core.capture import index as index_module
from inspector.core.capture import read_capture
from inspector.core.capture.index import CaptureIndex
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.clients.profiles import ProfileStore
from inspector.core.present.describe import compact_seconds
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line
from inspector.ui.app import build_window
from inspector.ui.session import feed as feed_module
from inspector.ui.timeline.filter import TimelineFilter
from inspector.ui.timeline.model import COL_LATENCY, COLUMNS, EVENT_ROLE, TimelineModel

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"
ROLES = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole)
FILTERS = [
    {},
    {"method": "tools/call"},
    {"method": "TOOLS"},
    {"directions": {"c2s"}, "show_stderr": False, "show_transport": False},
    {"directions": {"s2c"}},
    {"problems_only": True},
    {"text": "img src"},
    {"text": "IMG"},
    {"text": '"jsonrpc"'},  # quotes: not searched in the file, every row is checked
    {"text": "é"},
    {"text": "ready", "show_transport": False},
    {"text": "\xff"},
]


def cells(model) -> list[tuple]:
    return [tuple(model.data(model.index(row, column), role) for column in range(len(COLUMNS)) for role in ROLES)
            for row in range(model.rowCount())]


def shown(proxy: TimelineFilter) -> list[int]:
    return [proxy.data(proxy.index(row, 0), EVENT_ROLE).seq for row in range(proxy.rowCount(QModelIndex()))]


@pytest.fixture
def indexed_model():
    """Opens captures as indexed models; closes their files afterwards."""
    opened: list[CaptureIndex] = []

    def open_model(path) -> TimelineModel:
        index = CaptureIndex(path)
        opened.append(index)
        index.scan_all()
        model = TimelineModel(index=index)
        model.catch_up()
        return model

    yield open_model
    for index in opened:
        index.close()


def odd_capture(tmp_path):
    """The sample's events plus binary, non-ASCII and HTML-looking ones."""
    events = read_capture(SAMPLE).events
    extra = [decode_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                     "params": {"data": "café <b>é</b>"}}, ensure_ascii=False).encode(), Direction.S2C),
             decode_line(b"\xff\xfe binary img src", Direction.S2C),
             Event(Kind.STDERR, raw=b"stderr with \xff and IMG", dir=Direction.S2C, eol=b"\n")]
    path = tmp_path / "odd.jsonl"
    with CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]})) as writer:
        for seq, event in enumerate(events + extra, start=1):
            event.seq = seq
            writer.write(event)
    return path


@pytest.mark.parametrize("source", ["sample", "odd"])
def test_the_indexed_timeline_shows_the_same_cells_as_the_in_memory_one(qapp, tmp_path, source, indexed_model):
    path = SAMPLE if source == "sample" else odd_capture(tmp_path)
    memory = TimelineModel(read_capture(path).events, live=False)
    indexed = indexed_model(path)
    QAbstractItemModelTester(indexed, QAbstractItemModelTester.FailureReportingMode.Fatal)
    assert cells(indexed) == cells(memory)
    assert [indexed.row_of_seq(e.seq) for e in memory.events] == list(range(len(memory.events)))
    expected_pairs, expected_latency = pairing_in_file(path)
    for model in (memory, indexed):
        assert [model.pair_row(row) for row in range(model.rowCount())] == expected_pairs
        assert [model.index(row, COL_LATENCY).data() for row in range(model.rowCount())] == expected_latency


def pairing_in_file(path) -> tuple[list[int | None], list[str]]:
    """Each line's paired line and latency cell, worked out from the capture's JSON alone (no model, no
    reader): a response names its request's seq in ``data.reply_to``; a request with none is "no answer"."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    row_of = {line["seq"]: row for row, line in enumerate(lines)}
    pairs: list[int | None] = [None] * len(lines)
    latency = [""] * len(lines)
    for row, line in enumerate(lines):
        data = line.get("data", {})
        if "reply_to" in data and data["reply_to"] in row_of:
            request = row_of[data["reply_to"]]
            pairs[row], pairs[request] = request, row
            latency[row] = latency[request] = compact_seconds(data["latency"])
    for row, line in enumerate(lines):
        message = json.loads(line["raw"]) if line["kind"] == "message" else None
        if isinstance(message, dict) and "method" in message and "id" in message and line.get("dir") == "c2s" \
                and pairs[row] is None:
            latency[row] = "no answer"
    return pairs, latency


@pytest.mark.parametrize("source", ["sample", "odd"])
@pytest.mark.parametrize("settings", FILTERS, ids=[json.dumps(f, default=sorted) for f in FILTERS])
def test_every_filter_shows_the_same_rows_over_the_index_as_over_the_events(qtbot, tmp_path, source, settings,
                                                                          indexed_model):
    path = SAMPLE if source == "sample" else odd_capture(tmp_path)
    results = []
    for model in (TimelineModel(read_capture(path).events, live=False), indexed_model(path)):
        proxy = TimelineFilter()
        proxy.setSourceModel(model)
        QAbstractItemModelTester(proxy, QAbstractItemModelTester.FailureReportingMode.Fatal)
        proxy.set(**settings)
        # small: the search ends in its first 30 ms slice, unless the machine takes the CPU away meanwhile
        qtbot.waitUntil(lambda proxy=proxy: not proxy.searching, timeout=10_000)
        results.append(shown(proxy))
    assert results[0] == results[1]


def test_a_filter_set_while_a_capture_loads_ends_with_the_rows_of_the_whole_file(qtbot, tmp_path, settings,
                                                                                  monkeypatch):
    monkeypatch.setattr(index_module, "CHUNK_BYTES", 4096)  # one chunk a step: loading takes many steps
    monkeypatch.setattr(feed_module, "LOAD_SLICE_SECONDS", 0)
    events = []
    for n in range(3000):
        event = decode_line(json.dumps({"jsonrpc": "2.0", "method": f"notifications/m{n % 7}",
                                        "params": {"n": n}}).encode(), Direction.S2C)
        events.append(event)
    path = tmp_path / "many.jsonl"
    with CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]})) as writer:
        for seq, event in enumerate(events, start=1):
            event.seq = seq
            writer.write(event)
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "p.json"), captures=tmp_path)
    qtbot.addWidget(window)
    tab = window.open_capture(path)
    assert tab.loading  # the filter is set while the file is still being read
    tab.filter_method.setText("m3")
    tab.filter_text.setText('"n": 1')
    qtbot.waitUntil(lambda: not tab.loading and not tab.proxy.searching, timeout=30_000)
    want = [e.seq for e in events if e.method == "notifications/m3" and '"n": 1' in e.raw.decode()]
    assert shown(tab.proxy) == want and want
    tab.filter_text.setText("")
    tab.filter_method.setText("")
    assert tab.table.model() is tab.model and tab.model.rowCount() == len(events)
    tab.index.close()


@pytest.mark.parametrize("filtered", [False, True])
def test_next_problem_walks_the_problem_rows_in_order_with_and_without_a_filter(qtbot, tmp_path, settings, filtered):
    events = read_capture(SAMPLE).events
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "p.json"), captures=tmp_path)
    qtbot.addWidget(window)
    tab = window.open_capture(SAMPLE)
    qtbot.waitUntil(lambda: not tab.loading, timeout=30_000)
    if filtered:
        tab.timeline.show_stderr.setChecked(False)
    want = [e.seq for e in events if (e.kind == Kind.FRAMING_ERROR or any(f.severity == "error" for f in e.findings))
            and not (filtered and e.kind == Kind.STDERR)]
    seen = []
    for _ in range(len(want) + 1):
        tab.timeline.next_problem()
        event = tab.timeline.current_event()
        if event is None or event.seq in seen:  # F8 on the last problem goes back to the first
            break
        seen.append(event.seq)
    assert seen == want and want
    tab.index.close()
