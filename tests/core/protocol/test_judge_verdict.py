"""The decoder keeps the judge's verdict instead of the parse (``ProtocolJudge.verdict``, issue 15's held-parse
cost): a notification's schema is checked while its parse is fresh, and only a shared verdict outlives the line.
That shortcut is exact: the same findings as judging the bytes, with invalid notifications among valid ones of
the same method, and when the revision the judge uses changes between decoding a line and judging it."""

from __future__ import annotations

import json

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.protocol.judge import ProtocolJudge, Verdict
from inspector.core.protocol.pacer import JudgePacer
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import NOT_PARSED, LineDecoder

C2S, S2C = Direction.C2S, Direction.S2C
LOG = {"jsonrpc": "2.0", "method": "notifications/message"}
GOOD_LOG = {**LOG, "params": {"level": "info", "data": "x"}}
BAD_LOG = {**LOG, "params": {"level": "loud", "data": "x"}}  # not a LoggingLevel, in every revision
#: valid in 2024-11-05 (its params have no `_meta` property), not in 2025-11-25 (`_meta` must be an object)
META_LOG = {**LOG, "params": {"level": "info", "data": "x", "_meta": 5}}
#: schema-valid (a notification's schema allows more members), but the wire layer finds "method-and-result"
WITH_RESULT = {**GOOD_LOG, "result": {}}


def _line(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _findings(judge: ProtocolJudge) -> list[tuple[int, str, str, str, str]]:
    return [(f.seq, f.rule, f.path, f.text, f.revision) for seq in sorted(judge.findings)
            for f in judge.findings[seq]]


def _handshake_then_flood() -> list[tuple[str, dict]]:
    """Log notifications before and after a handshake that settles on 2025-11-25 (a judge assuming 2024-11-05
    until then), invalid ones among valid ones of the same method, some valid in 2024-11-05 and not in 2025-11-25."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {
        "logging": {}}, "serverInfo": {"name": "s", "version": "1"}}}
    flood = [GOOD_LOG, META_LOG, GOOD_LOG, BAD_LOG, GOOD_LOG, META_LOG, BAD_LOG, GOOD_LOG]
    return ([(S2C, GOOD_LOG), (S2C, META_LOG), (S2C, BAD_LOG), (C2S, init), (S2C, answer),
             (C2S, {"jsonrpc": "2.0", "method": "notifications/initialized"})] + [(S2C, m) for m in flood])


def _judged(lines: list[tuple[str, dict]], assumed: str | None, judged_before: int) -> tuple[
        ProtocolJudge, ProtocolJudge, list]:
    """Judge ``lines`` from the bytes, and with the verdicts a decoder kept: the verdicts' judge has judged the
    first ``judged_before`` lines when the rest are decoded (a pacer that far behind). Returns both judges and
    what the decoders kept of the lines decoded late."""
    pipeline = EventPipeline()
    plain, fast = ProtocolJudge(assumed), ProtocolJudge(assumed)
    decoders = {d: LineDecoder(d, share_parses=True, keep=fast.verdict) for d in (C2S, S2C)}
    events: list[Event] = []
    kept: list = []
    for position, (direction, obj) in enumerate(lines):
        if position == judged_before:
            fast.feed(events, kept)  # judged up to here before the rest is decoded
            plain.feed(events)
            events, kept = [], []
        batch = decoders[direction].feed(_line(obj))
        pipeline.push(batch, 0.0, 0.0)
        events.extend(batch)
        kept.extend(batch.values())
    late = list(kept)
    fast.feed(events, kept)
    plain.feed(events)
    return plain, fast, late


def test_valid_notifications_keep_a_shared_verdict_and_invalid_ones_their_parse():
    judge = ProtocolJudge("2025-11-25")
    lines = [GOOD_LOG, BAD_LOG, GOOD_LOG, GOOD_LOG, {"jsonrpc": "2.0", "id": 3, "method": "ping"}]
    batch = LineDecoder(S2C, share_parses=True, keep=judge.verdict).feed(b"".join(_line(m) for m in lines))
    kept = batch.values()
    assert type(kept[0]) is Verdict and kept[0] is kept[2] is kept[3] and kept[0].revision == "2025-11-25"
    assert kept[1] == BAD_LOG  # invalid: the parse is kept, judged in full when fed
    assert kept[4] == lines[4]  # a request: its parse, as before
    assert judge.findings == {}  # deciding what to keep judges nothing


def test_verdicts_find_exactly_what_the_bytes_find_wherever_the_revision_changes():
    """For every point the judge may have reached when the rest was decoded (before the handshake, between the
    request and the answer that changes the revision, after it): the same findings, seq by seq."""
    lines = _handshake_then_flood()
    for assumed in ("2024-11-05", "2025-11-25", None):
        for judged_before in range(len(lines) + 1):
            plain, fast, _ = _judged(lines, assumed, judged_before)
            assert _findings(fast) == _findings(plain), (assumed, judged_before)
    plain, fast, late = _judged(lines, "2024-11-05", 0)  # all decoded against 2024-11-05, judged by 2025-11-25
    seqs = {name: {seq for seq, (_, obj) in enumerate(lines, 1) if obj is which}
            for name, which in (("good", GOOD_LOG), ("meta", META_LOG), ("bad", BAD_LOG))}
    assert all(type(late[seq - 1]) is Verdict and late[seq - 1].revision == "2024-11-05" for seq in seqs["meta"])
    found = _findings(fast)
    schema = {seq: revision for seq, rule, _, _, revision in found if rule == "schema"}
    assert set(schema) == seqs["bad"] | {seq for seq in seqs["meta"] if seq > 5}  # a verdict said valid: rechecked
    assert {schema[seq] for seq in seqs["meta"] if seq > 5} == {"2025-11-25"}
    assert not seqs["good"] & set(schema)


def test_the_pacer_fed_verdicts_finds_what_it_finds_from_the_bytes():
    """Batches as a live session makes them, queued by row with what the decoder kept, judged in paced steps
    between batches (so some verdicts were made before the handshake was judged): the same findings."""
    lines = _handshake_then_flood() * 3
    pipeline = EventPipeline()
    pacer = JudgePacer(ProtocolJudge(), step_seconds=0.0)  # one chunk a step
    plain = JudgePacer(ProtocolJudge())
    decoders = {d: LineDecoder(d, share_parses=True, keep=pacer.judge.verdict) for d in (C2S, S2C)}
    rows: list[Event] = []
    for i, (direction, obj) in enumerate(lines):
        batch = decoders[direction].feed(_line(obj))
        pipeline.push(batch, 0.0, 0.0)
        first = len(rows)
        rows.extend(batch)
        pacer.push_rows(first, len(rows), rows.__getitem__, batch.values())
        plain.push_rows(first, len(rows), rows.__getitem__)
        if i % 5 == 4:  # the pacer judges now and then, behind the decoder
            pacer._next_at = 0.0
            pacer.step()
    pacer.drain()
    plain.drain()
    assert _findings(pacer.judge) == _findings(plain.judge)
    assert pacer.judge.counts.get("schema", 0) >= 3


def test_a_judge_without_a_revision_keeps_a_verdict_that_holds_only_while_it_has_none():
    judge = ProtocolJudge()
    kept = LineDecoder(S2C, share_parses=True, keep=judge.verdict).feed(_line(BAD_LOG)).values()
    assert type(kept[0]) is Verdict and kept[0].revision is None  # nothing to check against yet
    assert kept[0] is not NOT_PARSED


def test_a_verdict_names_its_direction_and_a_line_with_a_wire_finding_keeps_its_parse():
    judge = ProtocolJudge("2025-11-25")
    from_server = LineDecoder(S2C, share_parses=True, keep=judge.verdict).feed(_line(GOOD_LOG)).values()[0]
    from_client = LineDecoder(C2S, share_parses=True, keep=judge.verdict).feed(_line(GOOD_LOG)).values()[0]
    assert type(from_server) is Verdict and type(from_client) is Verdict and from_server is not from_client
    assert (from_server.pair, from_client.pair) == (("notifications/message", S2C), ("notifications/message", C2S))
    # valid against its schema (which allows more members), with a wire finding: its row must be read back
    odd = LineDecoder(S2C, share_parses=True, keep=judge.verdict).feed(_line(WITH_RESULT))
    assert [f.code for f in odd[0].findings] == ["method-and-result"] and odd.values() == [WITH_RESULT]


def test_the_pacer_reads_back_only_the_rows_the_judge_needs_and_hands_on_every_wire_finding():
    """A flood of valid notifications queued by row: rows whose verdict the judge can honour unseen are not read
    back from the store (one a chunk is, for the notification's rules); a row with a wire finding always is,
    and its finding reaches on_judged; the findings are those of judging the bytes."""
    lines = [(S2C, GOOD_LOG)] * 300 + [(S2C, BAD_LOG)] + [(S2C, GOOD_LOG)] * 300
    handed: list[Event] = []
    pacer = JudgePacer(ProtocolJudge("2025-11-25"), lambda events, found: handed.extend(events))
    plain = JudgePacer(ProtocolJudge("2025-11-25"))
    decoder = LineDecoder(S2C, share_parses=True, keep=pacer.judge.verdict)
    data = b"".join(_line(obj) for _, obj in lines)
    odd_at = 450
    cut = sum(len(_line(obj)) for _, obj in lines[:odd_at])
    data = data[:cut] + _line(WITH_RESULT) + data[cut:]  # one more line, with a wire finding
    batch = decoder.feed(data)
    EventPipeline().push(batch, 0.0, 0.0)
    rows = list(batch)
    reads: list[int] = []

    def fetch(row: int) -> Event:
        reads.append(row)
        return rows[row]

    pacer.push_rows(0, len(rows), fetch, batch.values())
    plain.push_rows(0, len(rows), rows.__getitem__)
    pacer.drain()
    plain.drain()
    assert _findings(pacer.judge) == _findings(plain.judge) and pacer.judge.counts.get("schema") == 1
    chunks = -(-len(rows) // 64)
    assert 300 in reads and odd_at in reads  # the invalid one and the one with a wire finding
    assert len(reads) <= 2 * chunks + 2, len(reads)  # not the 602 rows
    assert [e.seq for e in handed if e.findings] == [rows[odd_at].seq]
