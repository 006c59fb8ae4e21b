"""The judge reads the decoder's parse instead of parsing each message again (issue 15's ingest cost); that
sharing is exact: the same findings as judging from the bytes, on messages of one method where some are
invalid, and each value is the parse of exactly its own event's bytes."""

from __future__ import annotations

import json

from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.protocol.pacer import PARSED_HELD, JudgePacer
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import NOT_PARSED, Batch, LineDecoder

LOG = {"jsonrpc": "2.0", "method": "notifications/message"}


def _line(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _stream() -> bytes:
    """Log notifications, one method, of which some break the schema in different places, mixed with lines the
    decoder does not take its fast path for (CRLF, broken JSON, a pretty-printed object, a batch)."""
    good = [_line({**LOG, "params": {"level": "info", "data": i}}) for i in range(6)]
    bad = [
        _line({**LOG, "params": {"level": "loud", "data": 1}}),  # not a LoggingLevel
        _line({**LOG, "params": {"level": "info"}}),  # no data
        _line({**LOG, "params": {"level": "info", "data": 1, "logger": 7}}),  # logger not a string
        _line({"jsonrpc": "2.0", "method": "notifications/message", "params": []}),
    ]
    odd = [_line({**LOG, "params": {"level": "warning", "data": 2}}).replace(b"\n", b"\r\n"), b"{not json\n",
           b'{"jsonrpc": "2.0",\n "method": "ping", "id": 1}\n', b'[{"jsonrpc": "2.0", "method": "ping", "id": 2}]\n']
    return b"".join([good[0], bad[0], good[1], odd[0], bad[1], good[2], odd[1], bad[2], odd[2], good[3], bad[3],
                     odd[3], good[4], good[5]])


def _numbered(events: list[Event], first: int = 0) -> None:
    for seq, event in enumerate(events[first:], first + 1):
        event.seq = seq


def _findings(judge: ProtocolJudge) -> list[tuple[int, str, str, str]]:
    return [(f.seq, f.rule, f.path, f.text) for seq in sorted(judge.findings) for f in judge.findings[seq]]


def test_each_shared_value_is_the_parse_of_its_own_events_bytes_and_the_rest_are_not_parsed():
    batch = LineDecoder(share_parses=True).feed(_stream())
    assert isinstance(batch, Batch)
    values = batch.values()
    assert len(values) == len(batch)
    shared = [(event, value) for event, value in zip(batch, values, strict=True) if value is not NOT_PARSED]
    assert len(shared) == 10  # the six good and four bad log lines; not CRLF, broken, pretty-printed or batch
    for event, value in shared:
        assert event.kind == Kind.MESSAGE and value == json.loads(event.raw)
    assert list(batch[:2]) == batch[:2] and not isinstance(batch[:2], Batch)  # a slice carries no parses
    assert set(LineDecoder().feed(_stream()).values()) == {NOT_PARSED}  # nothing kept unless asked for


def test_judging_with_the_decoders_parse_finds_exactly_what_judging_the_bytes_finds():
    batch = LineDecoder(share_parses=True).feed(_stream())
    _numbered(batch)
    from_bytes, shared = ProtocolJudge("2025-11-25"), ProtocolJudge("2025-11-25")
    from_bytes.feed(batch)
    shared.feed(batch, batch.values())
    found = _findings(shared)
    assert found == _findings(from_bytes)
    bad_seqs = {seq for seq, rule, _, _ in found if rule == "schema"}
    assert bad_seqs == {2, 5, 8, 11}  # every invalid log message, none of the valid ones of the same method
    assert any("level" in path for seq, _, path, _ in found if seq == 2)
    assert any("logger" in path for seq, _, path, _ in found if seq == 8)


def test_the_pacer_judges_rows_with_their_parse_and_without_it_the_same():
    """Rows pushed with the decoder's parse, more than the pacer holds parses for, in batches as they come:
    the same findings as the bytes give, whichever rows kept their parse."""
    stream = _stream()
    repeats = PARSED_HELD // 10 + 50
    decoder = LineDecoder(share_parses=True)
    rows: list[Event] = []
    pacer = JudgePacer(ProtocolJudge("2025-11-25"))
    plain = JudgePacer(ProtocolJudge("2025-11-25"))
    for _ in range(repeats):
        batch = decoder.feed(stream)
        first = len(rows)
        rows.extend(batch)
        _numbered(rows, first)
        pacer.push_rows(first, len(rows), rows.__getitem__, batch.values())
        plain.push_rows(first, len(rows), rows.__getitem__)
    pacer.drain()
    plain.drain()
    assert pacer.backlog == 0 and pacer._parsed_held == 0
    assert _findings(pacer.judge) == _findings(plain.judge)
    assert sum(pacer.judge.counts.values()) >= 4 * repeats


def test_the_pacer_judges_queued_events_with_their_parse_and_without_it_the_same():
    """The same with events queued (``push``, a session that keeps no index), in batches as the decoder made
    them, past what the pacer holds parses for."""
    stream = _stream()
    decoder = LineDecoder(share_parses=True)
    pacer = JudgePacer(ProtocolJudge("2025-11-25"))
    plain = JudgePacer(ProtocolJudge("2025-11-25"))
    seq = 0
    for _ in range(PARSED_HELD // 10 + 50):
        batch = decoder.feed(stream)
        for event in batch:
            seq += 1
            event.seq = seq
        pacer.push(batch, batch.values())
        plain.push(batch)
    pacer.drain()
    plain.drain()
    assert pacer.backlog == 0 and pacer._parsed_held == 0
    assert _findings(pacer.judge) == _findings(plain.judge)
    assert sum(pacer.judge.counts.values()) >= 4 * (PARSED_HELD // 10 + 50)


def _scenario() -> bytes:
    """One stream, both directions' lines in order: the same server notifications before the handshake, after
    an answer that does not declare what they need, and after requests change what is in flight (2026-07-28
    logging needs a request in flight that asked for a level), with invalid ones of the same method between."""
    c2s, s2c = Direction.C2S, Direction.S2C

    def msg(direction: str, obj: dict) -> tuple[str, bytes]:
        return direction, json.dumps(obj).encode() + b"\n"

    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    log = {**LOG, "params": {"level": "info", "data": "x"}}
    bad_log = {**LOG, "params": {"level": "loud", "data": "x"}}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    return [
        msg(s2c, changed), msg(s2c, log), msg(s2c, changed), msg(s2c, bad_log), msg(s2c, log),
        msg(c2s, {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}),
        msg(s2c, {"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2026-07-28"], "capabilities": {
            "tools": {}, "logging": {}}, "serverInfo": {"name": "s", "version": "1"}}}),
        msg(s2c, changed), msg(s2c, log), msg(s2c, changed), msg(s2c, log), msg(s2c, bad_log),
        msg(c2s, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
            **meta, "io.modelcontextprotocol/logLevel": "info"}}}),
        msg(s2c, log), msg(s2c, changed), msg(s2c, log), msg(s2c, bad_log), msg(s2c, log),
        msg(s2c, {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
        msg(s2c, log), msg(s2c, log), msg(c2s, changed), msg(c2s, changed), msg(s2c, log),
    ]


def test_rules_that_depend_on_the_session_state_find_the_same_with_the_decoders_parse():
    """Notifications of one method repeated across state changes (handshake, requests in flight) and invalid
    ones among them: judged with the decoder's parse, in one batch, exactly what judging the bytes finds."""
    from inspector.core.capture.pipeline import EventPipeline

    pipeline = EventPipeline()
    events: list[Event] = []
    values: list = []
    decoders = {Direction.C2S: LineDecoder(Direction.C2S, share_parses=True),
                Direction.S2C: LineDecoder(Direction.S2C, share_parses=True)}
    for direction, line in _scenario():
        batch = decoders[direction].feed(line)
        pipeline.push(batch, 0.0, 0.0)  # numbers and pairs them (responses learn the method they answer)
        events.extend(batch)
        values.extend(batch.values())
    assert NOT_PARSED not in values
    from_bytes, shared = ProtocolJudge(), ProtocolJudge()
    from_bytes.feed(events)
    shared.feed(events, values)
    found = _findings(shared)
    assert found == _findings(from_bytes)
    rules = {rule for _, rule, _, _ in found}
    assert {"schema", "log-without-level", "server-capability-undeclared"} <= rules, rules  # state-dependent
    # logs while no request in flight asked for a level (after the answer to discover, and after tools/list's)
    assert {seq for seq, rule, _, _ in found if rule == "log-without-level"} == {9, 11, 12, 20, 21, 24}
