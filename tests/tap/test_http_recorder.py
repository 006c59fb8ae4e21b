"""The HTTP tap's recorder (inspector/core/tap/http_recorder.py): the proxy's frames become the events the HTTP
transports record, in the same shapes, paired by the session's pipeline."""

from __future__ import annotations

import gzip
import json

from wsproto.extensions import PerMessageDeflate
from wsproto.frame_protocol import CloseReason, FrameProtocol

from inspector.core.tap.http_recorder import HttpRecorder
from inspector.core.tap.options import (
    EXCHANGE,
    HTTP_REQUEST,
    HTTP_REQUEST_BODY,
    HTTP_REQUEST_END,
    HTTP_RESPONSE,
    HTTP_RESPONSE_BODY,
    HTTP_RESPONSE_END,
    HTTP_REWRITE,
    WS_C2S,
    WS_S2C,
)
from inspector.core.wire.events import Direction, Event, Kind

UPSTREAM = "https://api.example.com/mcp"


class Recording:
    """An HttpRecorder and the events its pipeline announced; ``frame(tag, n, payload, t)`` feeds it."""

    def __init__(self, **options) -> None:
        self.recorder = HttpRecorder(None, None, options.pop("max_message", 1 << 20), upstream=UPSTREAM, **options)
        self.events: list[Event] = []
        self.recorder.pipeline.listeners.append(self.events.extend)

    def frame(self, tag: int, number: int, payload: bytes | dict | None = None, t: float = 0.0) -> None:
        data = json.dumps(payload).encode() if isinstance(payload, dict) else (payload or b"")
        self.recorder.frame(tag, t, 1000.0 + t, EXCHANGE.pack(number) + data)

    def request(self, number: int, method: str, body: bytes = b"", t: float = 0.0, url: str = UPSTREAM,
                headers: list | None = None) -> None:
        self.frame(HTTP_REQUEST, number, {"method": method, "url": url, "headers": headers or [
            ["Host", "api.example.com"], ["Authorization", "Bearer s3cret"], ["Content-Type", "application/json"],
            ["Accept", "application/json, text/event-stream"]]}, t)
        for piece in (body[:10], body[10:]) if body else ():
            self.frame(HTTP_REQUEST_BODY, number, piece, t)
        self.frame(HTTP_REQUEST_END, number, None, t)

    def response(self, number: int, status: int, headers: list, t: float, connect: float | None = 0.01) -> None:
        self.frame(HTTP_RESPONSE, number, {"status": status, "reason": "OK", "http_version": "HTTP/1.1",
                                           "headers": headers, "connect": connect, "relayed": {}}, t)


def test_a_posted_request_and_its_json_answer_are_a_c2s_message_an_http_exchange_and_a_paired_s2c_message():
    rec = Recording()
    rec.request(1, "POST", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', t=1.0)
    rec.response(1, 200, [["Content-Type", "application/json"], ["Set-Cookie", "sid=1"]], t=1.25)
    rec.frame(HTTP_RESPONSE_BODY, 1, b'{"jsonrpc":"2.0",', 1.3)
    rec.frame(HTTP_RESPONSE_BODY, 1, b'"id":1,"result":{"tools":[]}}', 1.3)
    rec.frame(HTTP_RESPONSE_END, 1, {}, 1.5)
    sent, http, answer = rec.events
    assert (sent.kind, sent.dir, sent.method, sent.data["exchange"], sent.eol) == \
        (Kind.MESSAGE, Direction.C2S, "tools/list", 1, b"")
    assert http.kind == Kind.HTTP and http.data == {
        "exchange": 1, "method": "POST", "url": UPSTREAM, "purpose": "tools/list", "status": 200, "reason": "OK",
        "http_version": "HTTP/1.1",
        "request_headers": {"host": "api.example.com", "authorization": "[redacted]",
                            "content-type": "application/json", "accept": "application/json, text/event-stream"},
        "response_headers": {"content-type": "application/json", "set-cookie": "[redacted]"},
        "timing": {"connect": 0.01, "first_byte": 0.25, "total": 0.5}, "body_bytes": 46}
    assert (answer.dir, answer.data["exchange"], answer.data["reply_to"], answer.data["request_method"]) == \
        (Direction.S2C, 1, sent.seq, "tools/list")
    assert answer.data["latency"] == 0.5


def test_with_redaction_off_the_headers_are_kept():
    rec = Recording(redact=False)
    rec.request(1, "POST", b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    rec.response(1, 202, [], t=0.1)
    rec.frame(HTTP_RESPONSE_END, 1, {}, 0.1)
    assert rec.events[1].data["request_headers"]["authorization"] == "Bearer s3cret"


def test_an_event_stream_is_its_http_event_then_its_events_then_its_end():
    rec = Recording()
    rec.request(1, "POST", b'{"jsonrpc":"2.0","id":2,"method":"tools/call"}')
    rec.response(1, 200, [["Content-Type", "text/event-stream"]], t=0.1)
    stream = (b": ping\n\nid: p1\nretry: 100\ndata:\n\n"
              b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n'
              b'data: {"jsonrpc":"2.0","id":2,"result":{}}\n\ndata: {"half')
    rec.frame(HTTP_RESPONSE_BODY, 1, stream, 0.2)
    rec.frame(HTTP_RESPONSE_END, 1, {"error": "the client closed the connection before the response ended"}, 0.3)
    kinds = [(e.kind, e.method) for e in rec.events]
    assert kinds == [(Kind.MESSAGE, "tools/call"), (Kind.HTTP, None), (Kind.SSE, None),
                     (Kind.MESSAGE, "notifications/progress"), (Kind.MESSAGE, None), (Kind.HTTP, None)]
    head, priming, end = rec.events[1], rec.events[2], rec.events[5]
    assert head.data["status"] == 200 and head.data["timing"] == {"connect": 0.01, "first_byte": 0.1}
    assert priming.data == {"exchange": 1, "event": "message", "id": "p1", "retry": 100, "comments_before": 1,
                            "note": "priming event: an id with empty data, so the client can resume from here"}
    assert rec.events[3].data["sse"] == {"event": "message"} and rec.events[4].data["reply_to"] == 1
    assert end.data == {"exchange": 1, "phase": "end", "timing": {"total": 0.3}, "keepalive_comments": 1,
                        "incomplete_bytes": 12, "error": "the client closed the connection before the response ended"}


def test_an_endpoint_event_says_what_the_client_got_and_one_on_another_origin_is_flagged():
    rec = Recording()
    rec.request(1, "GET", url="https://api.example.com/sse", headers=[["Accept", "text/event-stream"]])
    rec.response(1, 200, [["Content-Type", "text/event-stream"]], t=0.1)
    rec.frame(HTTP_REWRITE, 1, {"relayed_as": "http://127.0.0.1:8765/messages?s=1"})
    rec.frame(HTTP_RESPONSE_BODY, 1, b"event: endpoint\ndata: https://api.example.com/messages?s=1\n\n")
    rec.request(2, "GET", url="https://api.example.com/sse", headers=[["Accept", "text/event-stream"]])
    rec.response(2, 200, [["Content-Type", "text/event-stream"]], t=0.1)
    rec.frame(HTTP_RESPONSE_BODY, 2, b"event: endpoint\ndata: https://elsewhere.example.com/m\n\n")
    first, other = [e for e in rec.events if e.kind == Kind.SSE]
    assert rec.events[0].data["purpose"] == "event stream"
    assert first.data["endpoint"] == "https://api.example.com/messages?s=1"
    assert first.data["relayed_as"] == "http://127.0.0.1:8765/messages?s=1" and not first.findings
    assert "relayed_as" not in other.data and [f.code for f in other.findings] == ["cross-origin-endpoint"]


def test_a_gzip_answer_is_recorded_decoded_and_an_unknown_coding_is_said_once():
    rec = Recording()
    rec.request(1, "POST", b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    rec.response(1, 200, [["Content-Type", "application/json"], ["Content-Encoding", "gzip"]], t=0.1)
    packed = gzip.compress(b'{"jsonrpc":"2.0","id":1,"result":{}}')
    rec.frame(HTTP_RESPONSE_BODY, 1, packed[:7])
    rec.frame(HTTP_RESPONSE_BODY, 1, packed[7:])
    rec.frame(HTTP_RESPONSE_END, 1, {})
    assert rec.events[-1].raw == b'{"jsonrpc":"2.0","id":1,"result":{}}' and rec.events[-1].data["reply_to"] == 1
    for number in (2, 3):
        rec.request(number, "POST", b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % number)
        rec.response(number, 200, [["Content-Type", "application/json"], ["Content-Encoding", "br"]], t=0.1)
    notes = [e for e in rec.events if e.kind == Kind.NOTE]
    assert len(notes) == 1 and "br-encoded" in notes[0].data["text"]


def test_a_body_over_the_limit_is_a_framing_error_with_its_size_and_ends():
    rec = Recording(max_message=100)
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"' + b"y" * 500 + b'"}}'
    rec.request(1, "POST", body)
    error = rec.events[0]
    assert error.kind == Kind.FRAMING_ERROR and error.data["oversize"]["total_bytes"] == len(body)
    assert "over the size limit" in error.reason and error.raw == body
    assert error.data["oversize"]["tail"] == body[-len(error.data["oversize"]["tail"]):]


def test_an_exchange_that_is_not_mcp_keeps_its_bodies_as_text_and_makes_no_message():
    rec = Recording()
    rec.request(1, "GET", url="https://api.example.com/.well-known/oauth-protected-resource", headers=[])
    rec.response(1, 200, [["Content-Type", "application/json"]], t=0.1)
    rec.frame(HTTP_RESPONSE_BODY, 1, b'{"resource":"https://api.example.com/mcp"}')
    rec.frame(HTTP_RESPONSE_END, 1, {})
    rec.request(2, "POST", b"grant_type=authorization_code&code=abc123&code_verifier=v3rifier",
                url="https://api.example.com/token",
                headers=[["Content-Type", "application/x-www-form-urlencoded"]])
    rec.response(2, 400, [["Content-Type", "text/html"]], t=0.1)
    rec.frame(HTTP_RESPONSE_BODY, 2, b"<html><h1>Bad grant</h1></html>")
    rec.frame(HTTP_RESPONSE_END, 2, {})
    assert [e.kind for e in rec.events] == [Kind.HTTP, Kind.HTTP]
    metadata, token = rec.events
    assert metadata.data["snippet"] == '{"resource":"https://api.example.com/mcp"}'
    assert token.data["snippet"] == "Bad grant"
    assert "abc123" not in token.data["request_body"] and "v3rifier" not in token.data["request_body"]
    assert token.data["request_body"].startswith("grant_type=authorization_code")


def test_a_server_that_cannot_be_reached_is_an_http_event_with_the_sentence_after_the_message():
    rec = Recording()
    rec.request(1, "POST", b'{"jsonrpc":"2.0","id":1,"method":"initialize"}')
    rec.frame(HTTP_RESPONSE_END, 1, {"error": "POST https://api.example.com/mcp: connection refused"}, 0.2)
    sent, failed = rec.events
    assert sent.method == "initialize"
    assert failed.data["error"] == "POST https://api.example.com/mcp: connection refused"
    assert "status" not in failed.data


def test_an_exchange_the_proxy_never_ended_ends_at_the_finish_with_a_sentence():
    rec = Recording()
    rec.request(1, "GET", headers=[["Accept", "text/event-stream"]])
    rec.response(1, 200, [["Content-Type", "text/event-stream"]], t=0.1)
    rec.recorder.finish(5.0, 1005.0)
    assert rec.events[-1].data == {"exchange": 1, "phase": "end", "timing": {"total": 5.0}, "keepalive_comments": 0,
                                   "error": "the tap ended before this exchange did"}


def test_websocket_frames_each_way_become_messages_a_binary_frame_an_error_and_a_close_frame_a_note():
    rec = Recording()
    rec.request(1, "GET", url="https://api.example.com/ws", headers=[
        ["Connection", "Upgrade"], ["Upgrade", "websocket"], ["Sec-WebSocket-Protocol", "mcp"]])
    offer = "permessage-deflate; client_max_window_bits=15; server_max_window_bits=15"
    rec.response(1, 101, [["Upgrade", "websocket"], ["Sec-WebSocket-Extensions", offer]], t=0.1)

    def sender(client: bool) -> FrameProtocol:
        deflate = PerMessageDeflate()
        deflate.finalize(offer)
        return FrameProtocol(client=client, extensions=[deflate])

    client, server = sender(True), sender(False)
    request = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    wire = bytes(client.send_data(request[:9], fin=False) + client.send_data(request[9:], fin=True))
    rec.frame(WS_C2S, 1, wire[:5])  # bytes as they came, cut anywhere
    rec.frame(WS_C2S, 1, wire[5:])
    rec.frame(WS_S2C, 1, bytes(server.send_data('{"jsonrpc":"2.0","id":1,"result":{}}') + server.ping(b"x")))
    rec.frame(WS_S2C, 1, bytes(server.send_data(b"\x00binary")))
    rec.frame(WS_C2S, 1, bytes(client.close(CloseReason.NORMAL_CLOSURE, "bye")))
    rec.frame(HTTP_RESPONSE_END, 1, {}, 0.9)
    upgrade, ping, pong, binary, note, end = rec.events
    assert upgrade.data["status"] == 101 and upgrade.data["purpose"] == "websocket upgrade"
    assert (ping.dir, ping.raw.decode(), ping.data["exchange"]) == (Direction.C2S, request, 1)
    assert pong.dir == Direction.S2C and pong.data["reply_to"] == ping.seq
    assert binary.kind == Kind.FRAMING_ERROR and binary.raw == b"\x00binary" and "binary" in binary.reason
    assert note.data["text"] == "the client closed the WebSocket (code 1000: bye)"
    assert end.data == {"exchange": 1, "phase": "end", "timing": {"total": 0.9}}


def test_websocket_bytes_that_are_no_frames_are_said_once_and_the_rest_is_not_decoded():
    rec = Recording()
    rec.request(1, "GET", headers=[["Connection", "Upgrade"], ["Upgrade", "websocket"]])
    rec.response(1, 101, [["Upgrade", "websocket"]], t=0.1)
    rec.frame(WS_S2C, 1, b"\x8f\x00")  # a reserved opcode
    rec.frame(WS_S2C, 1, b"\x81\x02hi")
    errors = [e for e in rec.events if e.kind == Kind.FRAMING_ERROR]
    assert len(errors) == 1 and "the server's WebSocket frames cannot be read" in errors[0].reason
    assert not [e for e in rec.events if e.kind == Kind.MESSAGE]
