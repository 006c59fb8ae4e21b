"""Intercept rules in the HTTP tap, without I/O (inspector/core/tap/http_intercept.py and the recorder's
``HTTP_MESSAGES`` frames): an event stream cut into events exactly, a changed message put in its event, and the
records of each verdict turned into marked events by the recorder, as every host records them."""

from __future__ import annotations

import asyncio
import json

from inspector.core.intercept.rules import parse_rules
from inspector.core.tap.http_intercept import SseBlocks, TapIntercept, is_request_in, with_data
from inspector.core.tap.http_recorder import HttpRecorder
from inspector.core.tap.options import (
    EXCHANGE,
    HTTP_MESSAGES,
    HTTP_REQUEST,
    HTTP_REQUEST_BODY,
    HTTP_REQUEST_END,
    HTTP_RESPONSE,
    HTTP_RESPONSE_BODY,
    HTTP_RESPONSE_END,
)
from inspector.core.wire.events import Direction, Event, Kind

CALL = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}'
ANSWER = b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"5"}]}}'
RULES = parse_rules({"rules": [
    {"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "rewrite",
     "set": {"/result/content/0/text": "forty-two"}},
    {"when": {"dir": "c2s", "method": "tools/call", "tool": "nope"}, "do": "error", "code": -32000,
     "message": "injected"},
]})


class Link:
    """What the proxy's spool would carry: (tag, payload) in order."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, bytes]] = []

    def send(self, tag: int, data: bytes = b"") -> None:
        self.frames.append((tag, data))


class Recording:
    """An HttpRecorder fed frames; the events its pipeline announced."""

    def __init__(self) -> None:
        self.recorder = HttpRecorder(None, None, 1 << 20, upstream="http://127.0.0.1:9/mcp")
        self.events: list[Event] = []
        self.recorder.pipeline.listeners.append(self.events.extend)

    def frame(self, tag: int, number: int, payload: bytes | dict | None = None, t: float = 0.0) -> None:
        data = json.dumps(payload).encode() if isinstance(payload, dict) else (payload or b"")
        self.recorder.frame(tag, t, 1000.0 + t, EXCHANGE.pack(number) + data)

    def raw_frame(self, tag: int, payload: bytes, t: float = 0.0) -> None:
        self.recorder.frame(tag, t, 1000.0 + t, payload)


# -- event streams ------------------------------------------------------------------------------------------


def test_an_event_stream_is_cut_into_its_events_whatever_the_chunks_and_line_endings():
    stream = (b": keep-alive\n\nevent: message\r\ndata: {\"a\":1}\r\n\r\nid: 7\rdata: {\"b\":\rdata: 2}\r\r"
              b"data: incomplete")
    for size in (1, 3, 7, len(stream)):
        blocks = SseBlocks()
        out = [block for i in range(0, len(stream), size) for block in blocks.feed(stream[i:i + size])]
        assert out == [b": keep-alive\n\n", b"event: message\r\ndata: {\"a\":1}\r\n\r\n",
                       b"id: 7\rdata: {\"b\":\rdata: 2}\r\r"], size
        assert b"".join(out) + blocks.close() == stream  # nothing lost, nothing added


def test_only_message_events_with_data_are_messages_with_their_fields_as_the_recorder_keeps_them():
    blocks = SseBlocks()
    assert blocks.message(b": ping\n\n") is None
    assert blocks.message(b"event: endpoint\ndata: /messages?s=1\n\n") is None
    assert blocks.endpoint == "/messages?s=1"
    assert blocks.message(b"id: 4\ndata:\n\n") is None  # a priming event
    assert blocks.message(b"id: 5\ndata: {\"x\":1}\n\n") == (b'{"x":1}', {"event": "message", "id": "5"})


def test_a_changed_message_replaces_the_data_lines_of_its_event_and_keeps_the_rest():
    block = b"event: message\r\nid: 9\r\n: a comment\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n"
    assert with_data(block, b'{"a":2}') == b"event: message\r\nid: 9\r\n: a comment\r\ndata: {\"a\":2}\r\n\r\n"
    assert with_data(b"data: x\n\n", b"y") == b"data: y\n\n"


def test_a_request_is_something_that_waits_for_an_answer_alone_or_in_a_batch():
    assert is_request_in(CALL)
    assert is_request_in(b'[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert not is_request_in(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert not is_request_in(ANSWER)
    assert not is_request_in(b"not json")


# -- what is recorded ----------------------------------------------------------------------------------------


def carried(intercept: TapIntercept, number: int, direction: str, raw: bytes, sse: dict | None = None):
    return asyncio.run(intercept.carry(number, direction, raw, sse))


def test_a_rewritten_answer_is_recorded_as_its_original_and_the_changed_message_paired_with_its_request():
    link = Link()
    intercept = TapIntercept(RULES, link, lambda: 1.5)
    rec = Recording()
    rec.frame(HTTP_REQUEST, 1, {"method": "POST", "url": "http://127.0.0.1:9/mcp", "intercept": True,
                                "headers": [["Content-Type", "application/json"]]})
    rec.frame(HTTP_REQUEST_BODY, 1, CALL)
    rec.frame(HTTP_REQUEST_END, 1)
    assert carried(intercept, 1, "c2s", CALL).passes
    rec.raw_frame(*link.frames.pop())
    rec.frame(HTTP_RESPONSE, 1, {"status": 200, "reason": "OK", "http_version": "HTTP/1.1", "intercept": True,
                                 "headers": [["Content-Type", "text/event-stream"]], "relayed": {}})
    assert carried(intercept, 1, "s2c", ANSWER, {"event": "message"}).changed
    tag, payload = link.frames.pop()
    assert tag == HTTP_MESSAGES
    rec.raw_frame(tag, payload, t=1.6)
    rec.frame(HTTP_RESPONSE_BODY, 1, b"event: message\ndata: " + ANSWER + b"\n\n")
    rec.frame(HTTP_RESPONSE_END, 1, {})
    messages = [e for e in rec.events if e.kind == Kind.MESSAGE]
    assert [(e.dir, e.data.get("intercept", {}).get("role")) for e in messages] == [
        (Direction.C2S, None), (Direction.S2C, "original"), (Direction.S2C, "changed")]
    call, original, changed = messages
    assert original.raw == ANSWER and b"forty-two" in changed.raw
    assert changed.data["intercept"] == {"rule": 1, "action": "rewrite", "role": "changed"}
    assert changed.data["reply_to"] == call.seq and "reply_to" not in original.data  # the original never arrived
    assert changed.data["sse"] == {"event": "message"} and changed.data["exchange"] == 1
    assert [e.data.get("purpose") for e in rec.events if e.kind == Kind.HTTP][0] == "tools/call"


def test_a_request_answered_by_the_tap_is_recorded_held_with_the_taps_answer_and_no_second_copy():
    link = Link()
    intercept = TapIntercept(RULES, link, lambda: 2.0)
    nope = CALL.replace(b'"add"', b'"nope"')
    verdict = carried(intercept, 1, "c2s", nope)
    assert verdict.answer is not None and not verdict.out
    rec = Recording()
    rec.frame(HTTP_REQUEST, 1, {"method": "POST", "url": "http://127.0.0.1:9/mcp", "intercept": True,
                                "headers": [["Content-Type", "application/json"]]})
    rec.frame(HTTP_REQUEST_BODY, 1, nope)
    rec.frame(HTTP_REQUEST_END, 1)
    rec.raw_frame(*link.frames[0])
    rec.frame(HTTP_RESPONSE, 1, {"status": 200, "reason": "OK", "http_version": "HTTP/1.1", "intercept": True,
                                 "headers": [["Content-Type", "application/json"]], "relayed": {},
                                 "note": "answered by the tap"})
    rec.frame(HTTP_RESPONSE_BODY, 1, verdict.answer)
    rec.frame(HTTP_RESPONSE_END, 1, {})
    messages = [e for e in rec.events if e.kind == Kind.MESSAGE]
    assert [(e.dir, e.data["intercept"]["role"]) for e in messages] == [(Direction.C2S, "held"),
                                                                         (Direction.S2C, "answer")]
    assert messages[1].rpc is not None and messages[1].rpc.kind == "error"
    http = next(e for e in rec.events if e.kind == Kind.HTTP)
    assert http.data["note"] == "answered by the tap" and http.data["status"] == 200


def test_the_taps_answer_to_a_servers_request_goes_to_the_sessions_own_server_and_nowhere_else():
    import httpx

    from inspector.core.tap.http_proxy import HttpProxy
    from inspector.core.tap.options import TapOptions

    reached: list[str] = []

    async def run() -> None:
        proxy = HttpProxy(TapOptions(url="http://127.0.0.1:9/mcp", rules=RULES), Link(), 8000)
        proxy.http = httpx.AsyncClient(transport=httpx.MockTransport(
            lambda request: reached.append(str(request.url)) or httpx.Response(202)))
        answer = b'{"jsonrpc":"2.0","id":"s1","error":{"code":-1,"message":"no"}}'
        for url in ("http://evil.example/mcp", "http://127.0.0.1:8000/mcp", "https://127.0.0.1:9/mcp",
                    "http://127.0.0.1:9/messages?session=1"):
            proxy._answer_server(url, [], answer)
        await asyncio.gather(*proxy._answers)
        await proxy.http.aclose()

    asyncio.run(run())
    assert reached == ["http://127.0.0.1:9/messages?session=1"]


def test_a_json_answer_cut_short_before_the_rules_saw_it_is_still_recorded_from_its_body():
    rec = Recording()
    rec.frame(HTTP_REQUEST, 1, {"method": "POST", "url": "http://127.0.0.1:9/mcp", "intercept": True,
                                "headers": [["Content-Type", "application/json"]]})
    rec.frame(HTTP_REQUEST_BODY, 1, CALL)
    rec.frame(HTTP_REQUEST_END, 1)
    rec.frame(HTTP_RESPONSE, 1, {"status": 200, "reason": "OK", "http_version": "HTTP/1.1", "intercept": True,
                                 "headers": [["Content-Type", "application/json"]], "relayed": {}})
    rec.frame(HTTP_RESPONSE_BODY, 1, ANSWER[:20])
    rec.frame(HTTP_RESPONSE_END, 1, {"error": "the server closed the connection"})
    assert [(e.kind, e.dir) for e in rec.events if e.dir == Direction.S2C] == [(Kind.FRAMING_ERROR, Direction.S2C)]
