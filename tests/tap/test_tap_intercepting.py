"""The stdio tap's intercept rules, without processes (inspector/core/tap/intercepting.py): how the relay frames
each direction into lines, carries out each verdict, holds what waits, and what it hands the recorder; and the
recorder's events for those frames."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from helpers import until

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.intercept.engine import Interceptor, Verdict
from inspector.core.intercept.records import records
from inspector.core.intercept.rules import parse_rules
from inspector.core.tap.intercepting import Peer, TapIntercept, unpack_record
from inspector.core.tap.options import C2S, INTERCEPTED, S2C
from inspector.core.tap.recorder import Recorder
from inspector.core.wire.events import Event, Kind

CALL = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}'
ANSWER = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'
LIST = b'{"jsonrpc":"2.0","id":8,"method":"tools/list"}'


class Link:
    def __init__(self) -> None:
        self.frames: list[tuple[int, bytes]] = []

    def send(self, tag: int, data: bytes = b"") -> None:
        self.frames.append((tag, data))


class Host:
    """A TapIntercept between two recording peers (the server's stdin, the client's stdout)."""

    def __init__(self, rules: list[dict[str, Any]], limit: int = 1 << 20) -> None:
        self.to_server: list[bytes] = []
        self.to_client: list[bytes] = []
        self.server_open = self.client_open = True
        self.notes: list[str] = []
        self.link = Link()
        peers = (Peer(self.to_server.append, lambda: self.server_open),
                 Peer(self.to_client.append, lambda: self.client_open))
        self.tap = TapIntercept(Interceptor(parse_rules({"rules": rules})), self.link, time.monotonic(), peers,
                                limit, lambda text, **data: self.notes.append(text))

    def marks(self) -> list[tuple[str, str | None, bytes]]:
        """(direction, role, raw) of each INTERCEPTED frame."""
        found = []
        for tag, payload in self.link.frames:
            if tag == INTERCEPTED:
                direction, raw, _, mark = unpack_record(payload)
                found.append((direction, mark["role"] if mark else None, raw))
        return found


REWRITE = {"when": {"dir": "s2c", "method": "tools/call"}, "do": "rewrite", "set": {"/result/content/0/text": "42"}}


def test_lines_no_rule_matches_go_on_as_one_write_and_a_line_cut_by_the_chunk_waits_for_its_newline():
    async def scenario() -> Host:
        host = Host([REWRITE])
        host.tap.s2c.feed(NOTE + b"\n" + NOTE[:20])
        assert host.to_client == [NOTE + b"\n"]  # the cut line is held, not written
        host.tap.s2c.feed(NOTE[20:] + b"\r\n" + NOTE + b"\n")
        return host

    host = asyncio.run(scenario())
    assert host.to_client == [NOTE + b"\n", NOTE + b"\r\n" + NOTE + b"\n"]  # one write a run of lines
    assert host.link.frames == [(S2C, NOTE + b"\n"), (S2C, NOTE + b"\r\n" + NOTE + b"\n")]


def test_a_rewritten_answer_goes_on_changed_with_its_own_terminator_and_both_are_recorded_marked():
    async def scenario() -> Host:
        host = Host([REWRITE])
        host.tap.c2s.feed(CALL + b"\n")
        host.tap.s2c.feed(NOTE + b"\n" + ANSWER + b"\r\n" + NOTE + b"\n")
        return host

    host = asyncio.run(scenario())
    changed = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"42"}]}}'
    assert host.to_server == [CALL + b"\n"]
    assert host.to_client == [NOTE + b"\n", changed + b"\r\n", NOTE + b"\n"]
    assert host.marks() == [("s2c", "original", ANSWER), ("s2c", "changed", changed)]
    assert [tag for tag, _ in host.link.frames] == [C2S, S2C, INTERCEPTED, INTERCEPTED, S2C]
    assert unpack_record(host.link.frames[3][1])[2] == b"\r\n"


def test_a_held_request_is_answered_to_its_sender_and_never_reaches_the_server():
    async def scenario() -> Host:
        host = Host([{"when": {"dir": "c2s", "method": "tools/call"}, "do": "error", "code": -32000,
                      "message": "injected"}])
        host.tap.c2s.feed(LIST + b"\n" + CALL + b"\n")
        return host

    host = asyncio.run(scenario())
    assert host.to_server == [LIST + b"\n"]
    assert host.to_client == [b'{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"injected"}}\n']
    assert [(d, role) for d, role, _ in host.marks()] == [("c2s", "held"), ("s2c", "answer")]


def test_a_dropped_message_is_recorded_and_never_written():
    async def scenario() -> Host:
        host = Host([{"when": {"dir": "s2c", "match": "notifications/message"}, "do": "drop"}])
        host.tap.s2c.feed(NOTE + b"\n" + ANSWER + b"\n")
        return host

    host = asyncio.run(scenario())
    assert host.to_client == [ANSWER + b"\n"]
    assert host.marks() == [("s2c", "dropped", NOTE)]


def test_a_delayed_message_waits_alone_while_the_next_one_goes_on():
    async def scenario() -> tuple[Host, float]:
        host = Host([{"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 100}])
        began = time.monotonic()
        host.tap.c2s.feed(LIST + b"\n" + CALL + b"\n")
        assert host.to_server == [CALL + b"\n"]  # the call overtook the held list
        await until(lambda: len(host.to_server) == 2, 5, "the delayed message")
        return host, time.monotonic() - began

    host, took = asyncio.run(scenario())
    assert host.to_server == [CALL + b"\n", LIST + b"\n"]
    assert took >= 0.1
    (direction, raw, eol, mark), = [unpack_record(p) for tag, p in host.link.frames if tag == INTERCEPTED]
    assert (direction, raw, eol, mark["role"], mark["ms"]) == ("c2s", LIST, b"\n", "delayed", 100)
    assert 0 <= mark["arrived"] < 0.1


def test_the_end_of_a_stream_waits_for_its_held_messages_and_settle_lets_them_go_at_once():
    async def scenario() -> tuple[Host, list[str], float]:
        host = Host([{"when": {"dir": "s2c"}, "do": "delay", "ms": 60_000}])
        events: list[str] = []
        host.tap.s2c.feed(ANSWER + b"\n" + b'{"partial')
        host.tap.s2c.end()  # the server closed its stdout mid-line: the rest goes on as it came
        assert host.to_client == [b'{"partial']
        assert host.tap.s2c.after_held(lambda: events.append("stdout closed"))
        began = time.monotonic()
        await host.tap.settle(asyncio.Event(), timeout=0.05)
        return host, events, time.monotonic() - began

    host, events, took = asyncio.run(scenario())
    assert took < 5  # not the rule's minute
    assert host.to_client == [b'{"partial', ANSWER + b"\n"]
    assert events == ["stdout closed"]
    (_, raw, _, mark), = [unpack_record(p) for tag, p in host.link.frames if tag == INTERCEPTED]
    assert raw == ANSWER and mark["role"] == "delayed" and mark["ms"] < 5000


def test_a_held_message_whose_peer_closed_is_recorded_dropped_with_a_note():
    async def scenario() -> Host:
        host = Host([{"when": {"dir": "c2s"}, "do": "delay", "ms": 60_000}])
        host.tap.c2s.feed(CALL + b"\n")
        host.server_open = False
        await host.tap.settle(asyncio.Event(), timeout=0)
        return host

    host = asyncio.run(scenario())
    assert host.to_server == []
    assert host.marks() == [("c2s", "dropped", CALL)]
    assert host.notes == ["rule 1 (delay) held a message until the server's stdin was closed: it was never "
                          "delivered"]


def test_a_line_over_the_limit_passes_through_with_a_note_and_an_answer_for_that_peer_waits_for_its_end():
    async def scenario() -> Host:
        host = Host([{"when": {"dir": "c2s", "method": "tools/call"}, "do": "error", "code": 1, "message": "no"}],
                    limit=100)
        host.tap.s2c.feed(b'{"big":"' + b"x" * 80)
        host.tap.s2c.feed(b"y" * 80)  # past the limit: what was held goes on, and the rest as it comes
        host.tap.c2s.feed(CALL + b"\n")  # its answer must not land inside the big line
        assert host.to_client == [b'{"big":"' + b"x" * 80 + b"y" * 80]
        host.tap.s2c.feed(b'"}\n' + NOTE + b"\n")
        return host

    host = asyncio.run(scenario())
    error = b'{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"no"}}\n'
    assert host.to_client == [b'{"big":"' + b"x" * 80 + b"y" * 80, b'"}\n', error, NOTE + b"\n"]
    assert len(host.notes) == 1 and "without intercept rules" in host.notes[0]


def test_a_pause_without_a_pauser_passes_the_message_unchanged_and_with_one_takes_its_decision():
    pause = [{"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"}]

    async def without() -> Host:
        host = Host(pause)
        host.tap.c2s.feed(CALL + b"\n")
        return host

    host = asyncio.run(without())
    assert host.to_server == [CALL + b"\n"] and host.link.frames == [(C2S, CALL + b"\n")]

    async def with_pauser() -> Host:
        host = Host(pause)
        asked: list[tuple[str, bytes]] = []

        async def decide(direction: str, raw: bytes, verdict: Verdict) -> Verdict:
            asked.append((direction, raw))
            return host.tap.interceptor.resolve(direction, raw, "forward", edited=raw.replace(b"add", b"sum"),
                                                rule=verdict.rule)

        host.tap.pauser = decide
        host.tap.c2s.feed(CALL + b"\n" + LIST + b"\n")
        assert host.to_server == [LIST + b"\n"]  # the list goes on while the call waits
        await until(lambda: len(host.to_server) == 2, 5, "the decision")
        assert asked == [("c2s", CALL)]
        return host

    host = asyncio.run(with_pauser())
    assert host.to_server == [LIST + b"\n", CALL.replace(b"add", b"sum") + b"\n"]
    assert [role for _, role, _ in host.marks()] == ["original", "changed"]


def test_the_recorder_records_exactly_what_records_lists_for_a_verdict_marked_and_paired():
    rules = parse_rules({"rules": [REWRITE]})
    interceptor = Interceptor(rules)
    interceptor.decide("c2s", CALL)
    verdict = interceptor.decide("s2c", ANSWER)
    expected = records("s2c", ANSWER, verdict)

    async def scenario() -> Host:
        host = Host([REWRITE])
        host.tap.c2s.feed(CALL + b"\n")
        host.tap.s2c.feed(ANSWER + b"\n")
        return host

    host = asyncio.run(scenario())
    recorder = Recorder(None)
    kept: list[Event] = []
    recorder.pipeline = EventPipeline(None, keep=kept)
    for tag, payload in host.link.frames:
        recorder.frame(tag, 1.0, 2.0, payload)
    messages = [e for e in kept if e.kind == Kind.MESSAGE]
    assert [(e.dir, e.raw, e.data.get("intercept")) for e in messages[1:]] == \
        [(r.dir, r.raw, r.mark) for r in expected]
    assert "latency" not in messages[1].data and messages[2].data["latency"] >= 0  # the original is not paired


MIXED = [
    NOTE,
    CALL,
    b'{"jsonrpc":"2.0","id":9,"method":"tools\\/call","params":{"name":"sum"}}',  # the method spelled with an escape
    b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add"}}',  # a notification of that method
    b'{"jsonrpc":"2.0","method":"tools\\/call","params":{"name":"add"}}',  # the same, escaped
    b'{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"9"}]}}',
    b'{"jsonrpc":"2.0","\\u0069d":10,"method":"tools/call","params":{"name":"add"}}',  # "id" spelled with an escape
    ANSWER,
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":3}}',
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3}}',
    b"not json at all",
    b'[{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"add"}}]',
]


def test_lines_the_relay_does_not_ask_the_engine_about_get_the_verdicts_the_engine_would_give(monkeypatch):
    """The relay skips lines that hold none of the needles (inspector.core.tap.intercepting.needles): the
    result is the same, line for line, as asking the engine about every one, whichever search finds them."""
    rules = [{"when": {"dir": "s2c", "method": "tools/call"}, "do": "rewrite",
              "set": {"/result/content/0/text": "rewritten"}},
             {"when": {"dir": "c2s", "tool": "add"}, "do": "drop"},
             {"when": {"dir": "s2c", "match": "progress"}, "do": "drop"}]
    stream = b"".join(line + b"\n" for line in MIXED)

    def through(size: int) -> Host:
        async def scenario() -> Host:
            host = Host(rules)
            for at in range(0, len(stream), size):  # lines cut across chunks, several to a chunk
                host.tap.c2s.feed(stream[at:at + size])
                host.tap.s2c.feed(stream[at:at + size])
            return host
        return asyncio.run(scenario())

    sizes = (len(stream), 7, 100, 333)
    skipping = [through(size) for size in sizes]
    # a line cut by a chunk framed by itself, not joined to the chunk that completes it (what big chunks get)
    monkeypatch.setattr("inspector.core.tap.intercepting.JOIN_AT_MOST", 0)
    alone = [through(size) for size in sizes]
    monkeypatch.undo()
    # the needles looked for with bytes.find (where stringzilla is missing) instead of stringzilla's SIMD search
    monkeypatch.setattr("inspector.core.tap.intercepting._find", bytes.find)
    plain = [through(size) for size in sizes]
    monkeypatch.setattr("inspector.core.tap.intercepting.needles", lambda rules, direction: None)
    asked = [through(size) for size in sizes]
    for chunked, cut_alone, found_plainly, asking in zip(skipping, alone, plain, asked, strict=True):
        assert chunked.marks() == cut_alone.marks() == found_plainly.marks() == asking.marks()
        assert (b"".join(chunked.to_server), b"".join(chunked.to_client)) == \
            (b"".join(cut_alone.to_server), b"".join(cut_alone.to_client)) == \
            (b"".join(found_plainly.to_server), b"".join(found_plainly.to_client)) == \
            (b"".join(asking.to_server), b"".join(asking.to_client))
        assert b"".join(data for tag, data in chunked.link.frames if tag in (C2S, S2C)) == \
            b"".join(data for tag, data in cut_alone.link.frames if tag in (C2S, S2C))
    asking = asked[0]
    roles = [(direction, role) for direction, role, _ in asking.marks()]
    # the call, both notifications, "\u0069d"; the escaped method's call (of "sum") goes on, and its answer is the
    # one rewritten (a dropped request's id answers nothing: the engine forgets it)
    assert roles.count(("c2s", "dropped")) == 4
    assert {("s2c", "original"), ("s2c", "changed"), ("s2c", "unchanged"), ("s2c", "dropped")} <= set(roles)


def test_a_rule_that_names_no_method_or_tool_makes_the_relay_ask_about_every_line_of_its_direction():
    from inspector.core.tap.intercepting import needles

    rules = parse_rules({"rules": [{"when": {"dir": "c2s", "match": "[xy]+"}, "do": "drop"},
                                   {"when": {"dir": "s2c", "method": "tools/list"}, "do": "drop"},
                                   {"when": {"dir": "s2c", "match": "secret"}, "do": "drop"},
                                   {"when": {"tool": "add"}, "do": "drop", "enabled": False}]})
    assert needles(rules, "c2s") is None
    assert sorted(needles(rules, "s2c") or ()) == [b'"id"', b"\\", b"secret", b"tools/list"]


def test_a_pattern_is_looked_for_by_the_literal_every_match_of_it_holds_or_else_on_every_line():
    from inspector.core.tap.intercepting import required_literal

    assert [required_literal(pattern) for pattern in ("tools/list", "secre[t]", "x.y", "ab+c", "abc?", "[^]a]bcd",
                                                       "^tools/call$")] == \
        ["tools/list", "secre", "x", "ab", "ab", "bcd", "tools/call"]
    # an escape, a group or inline flag, an alternative, a counted or fuzzy repeat, a set holding "[", no literal
    assert [required_literal(pattern) for pattern in ("\\dsecret", "(?i)secret", "a|b", "secret{e<=1}",
                                                       "[[:alpha:]]xyz", "[ab", ".*", "a*b?", "é")] == [None] * 9


def test_lines_skipped_for_the_literal_a_pattern_requires_get_the_verdicts_the_engine_would_give(monkeypatch):
    rules = [{"when": {"dir": "s2c", "match": "notifications/pro[g]res+"}, "do": "drop"},
             {"when": {"dir": "c2s", "match": "\"na.e\":\"ad*"}, "do": "drop"},
             {"when": {"dir": "s2c", "match": "resul[t]\":{\"con"}, "do": "rewrite", "set": {"/result": 1}}]
    stream = b"".join(line + b"\n" for line in MIXED)

    def through(size: int) -> Host:
        async def scenario() -> Host:
            host = Host(rules)
            for at in range(0, len(stream), size):
                host.tap.c2s.feed(stream[at:at + size])
                host.tap.s2c.feed(stream[at:at + size])
            return host
        return asyncio.run(scenario())

    sizes = (len(stream), 7, 100)
    skipping = [through(size) for size in sizes]
    monkeypatch.setattr("inspector.core.tap.intercepting.needles", lambda rules, direction: None)
    asked = [through(size) for size in sizes]
    for chunked, asking in zip(skipping, asked, strict=True):
        assert chunked.marks() == asking.marks()
        assert (b"".join(chunked.to_server), b"".join(chunked.to_client)) == \
            (b"".join(asking.to_server), b"".join(asking.to_client))
    roles = {(direction, role) for direction, role, _ in asked[0].marks()}
    assert {("c2s", "dropped"), ("s2c", "dropped"), ("s2c", "changed")} <= roles
