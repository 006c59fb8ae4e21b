"""The replay plan built from a capture (no server): which messages are sent and how, what each request
waits for, the recorded answers the handler gives, the reasons some lines cannot be replayed; the recorded
target and when it may be rerun; the handler's answers."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import pytest

from inspector.core.capture import Capture
from inspector.core.connect.target import Target
from inspector.core.replay.engine import (
    MAPPED,
    RAW,
    REQUEST,
    RecordedAnswer,
    RecordedAnswers,
    ReplayPlan,
)
from inspector.core.session.outcomes import RpcError
from inspector.core.wire.correlation import Correlator
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line

C2S, S2C = Direction.C2S, Direction.S2C
STDIO = {"transport": "stdio", "argv": ["server"], "cwd": None, "env": {}, "redacted": True}


def capture(*items: tuple[str, Any, float], target: dict[str, Any] | None = None) -> Capture:
    """Events from ``(direction, message or bytes, t)``; bytes that are no message become framing errors.
    Responses are paired as the recording session pairs them (``data.reply_to``)."""
    events = []
    correlator = Correlator()
    for seq, (direction, body, t) in enumerate(items, 1):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        event = decode_line(raw, direction)
        event.seq, event.t = seq, t
        correlator.observe(event)
        events.append(event)
    return Capture({"format": "mcp-inspector-capture", "version": 1, "created": "then", "target": target or STDIO},
                   events)


def req(msg_id: Any, method: str, params: Any = None) -> dict[str, Any]:
    obj = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        obj["params"] = params
    return obj


def res(msg_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def note(method: str, params: Any = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        obj["params"] = params
    return obj


def test_requests_are_replayed_with_their_recorded_answers_and_notifications_byte_for_byte():
    plan = ReplayPlan.from_capture(capture(
        (C2S, req(1, "initialize", {"protocolVersion": "2025-11-25"}), 0.0),
        (S2C, res(1, {"protocolVersion": "2025-11-25"}), 0.1),
        (C2S, note("notifications/initialized"), 0.2),
        (C2S, req(2, "tools/list"), 0.3),
        (S2C, res(2, {"tools": []}), 0.4),
    ))
    assert [(s.action, s.method, s.recorded_id) for s in plan.steps] == [
        (REQUEST, "initialize", 1), (RAW, "notifications/initialized", None), (REQUEST, "tools/list", 2)]
    assert [s.response.seq if s.response else None for s in plan.steps] == [2, None, 5]
    assert all(s.check() is None for s in plan.steps)
    assert plan.handshake_index == 0


def test_a_request_answered_before_the_next_message_is_waited_for_and_one_left_pending_is_not():
    plan = ReplayPlan.from_capture(capture(
        (C2S, req(1, "tools/call", {"name": "slow"}), 1.0),
        (C2S, req(2, "tools/list"), 3.5),  # sent while 1 was pending
        (S2C, res(2, {}), 3.6),
        (S2C, res(1, {}), 5.0),
        (C2S, req(3, "ping"), 6.0),  # never answered
        (S2C, note("notifications/message"), 7.0),
    ))
    slow, listing, ping = plan.steps
    assert (slow.waited, slow.gap, slow.response.seq) == (False, 2.5, 4)
    assert (listing.waited, listing.response.seq) == (True, 3)
    assert (ping.waited, ping.response, ping.gap) == (False, None, 1.0)


def test_the_clients_own_answers_to_server_requests_become_the_handlers_answers_in_order():
    plan = ReplayPlan.from_capture(capture(
        (C2S, req(1, "tools/call"), 0.0),
        (S2C, req("s1", "sampling/createMessage"), 0.1),
        (C2S, res("s1", {"content": {"type": "text", "text": "Paris"}}), 0.2),
        (S2C, req("s2", "sampling/createMessage"), 0.3),
        (C2S, {"jsonrpc": "2.0", "id": "s2", "error": {"code": -1, "message": "no"}}, 0.4),
        (S2C, req("s3", "elicitation/create"), 0.5),  # never answered
        (S2C, req("s4", "ping"), 0.6),
        (C2S, res("s4", {}), 0.7),
        (S2C, req("s5", "roots/list"), 0.8),
        (C2S, res("s5", {"roots": [{"uri": "file:///w", "name": "w"}]}), 0.9),
        (S2C, res(1, {}), 1.0),
    ))
    assert [s.method for s in plan.steps] == ["tools/call"]
    assert plan.handler_answers == 4
    assert plan.answers == {
        "sampling/createMessage": [RecordedAnswer(3, True, result={"content": {"type": "text", "text": "Paris"}}),
                                   RecordedAnswer(5, True, error={"code": -1, "message": "no"})],
        "elicitation/create": [RecordedAnswer(None, False)],
    }
    assert plan.roots == [{"uri": "file:///w", "name": "w"}]
    assert plan.steps[0].window == Counter({"sampling/createMessage request": 2, "elicitation/create request": 1,
                                            "ping request": 1, "roots/list request": 1})


def test_a_client_answer_to_nothing_is_resent_as_recorded():
    plan = ReplayPlan.from_capture(capture((C2S, res(99, {}), 0.0)))
    assert plan.steps[0].action == RAW
    assert plan.steps[0].note == "resent byte for byte: it answers no request of the server"


def test_a_cancellation_names_the_request_it_cancels():
    plan = ReplayPlan.from_capture(capture(
        (C2S, req(7, "tools/call"), 0.0),
        (C2S, note("notifications/cancelled", {"requestId": 7, "reason": "timeout"}), 1.0),
        (C2S, note("notifications/cancelled", {"requestId": 8}), 1.1),
    ))
    assert [(s.action, s.cancels) for s in plan.steps[1:]] == [(MAPPED, 0), (RAW, None)]


def test_framing_errors_are_resent_raw_with_a_note_and_an_oversize_line_cannot_be_replayed():
    cap = capture((C2S, b"not json", 0.0), (C2S, b"\xff\xfe{}", 0.1), (C2S, req(1, "ping"), 0.2))
    oversize = Event(Kind.FRAMING_ERROR, raw=b"{" * 10, dir=C2S, eol=b"\n", reason="too long",
                     data={"oversize": {"total_bytes": 70_000_000, "tail": b"}"}}, seq=4, t=0.3)
    cap.events.append(oversize)
    plan = ReplayPlan.from_capture(cap)
    junk, binary, ping, big = plan.steps
    assert junk.action == RAW and junk.check() is None
    assert junk.note.startswith("resent byte for byte: it was a framing error (")
    assert binary.note == "resent byte for byte: its bytes are not valid UTF-8"
    assert ping.check() is None
    assert big.check() == "it was over the size limit (70,000,000 bytes), so only its start and end were recorded"
    assert big.label() == "framing error #4"


def test_a_request_with_an_odd_id_keeps_it():
    plan = ReplayPlan.from_capture(capture((C2S, req(1.5, "ping"), 0.0)))
    assert plan.steps[0].action == REQUEST
    assert plan.steps[0].note == "its id 1.5 is neither a string nor an integer, so it is sent with that id again"


def test_a_batch_is_resent_as_recorded_and_its_answers_are_not_compared():
    plan = ReplayPlan.from_capture(capture((C2S, [req(1, "ping"), req(2, "ping")], 0.0)))
    assert plan.steps[0].action == RAW
    assert "a batch" in plan.steps[0].note


def test_windows_count_notifications_server_requests_framing_errors_and_stray_answers():
    plan = ReplayPlan.from_capture(capture(
        (S2C, note("notifications/message"), 0.0),  # before anything was sent: the first window
        (C2S, req(1, "tools/call"), 0.1),
        (S2C, note("notifications/progress"), 0.2),
        (S2C, note("notifications/progress"), 0.3),
        (S2C, b"garbage", 0.35),
        (S2C, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}, 0.36),
        (S2C, res(1, {}), 0.4),
        (C2S, req(2, "ping"), 0.5),
        (S2C, res(2, {}), 0.6),
    ))
    assert plan.steps[0].window == Counter({"notifications/message": 1, "notifications/progress": 2,
                                            "framing error": 1, "error that answers no request": 1})
    assert plan.steps[1].window == Counter()


def test_nothing_sent_means_nothing_to_replay():
    plan = ReplayPlan.from_capture(capture((S2C, note("notifications/message"), 0.0)))
    assert plan.check() == "the capture has no message sent to the server, so there is nothing to replay"


def test_a_discover_probe_answered_with_an_error_is_not_the_handshake():
    plan = ReplayPlan.from_capture(capture(
        (C2S, req(1, "server/discover"), 0.0),
        (S2C, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}, 0.1),
        (C2S, req(2, "initialize"), 0.2),
        (S2C, res(2, {"protocolVersion": "2025-11-25"}), 0.3),
    ))
    assert plan.handshake_index == 1


# -- the recorded target ----------------------------------------------------------------------------------


def test_a_recorded_stdio_target_is_described_before_it_may_run():
    target = Target.from_capture_header({"target": {"transport": "stdio", "argv": ["python", "-m", "srv", "a b"],
                                                    "cwd": "/srv", "env": {"MODE": "x"}}})
    assert target.rerun_problem() is None
    assert target.describe_lines() == ["command: python -m srv 'a b'", "working directory: /srv",
                                       "environment overrides: MODE=x"]


def test_a_recorded_target_with_redacted_secrets_cannot_run():
    target = Target.from_capture_header({"target": {"transport": "stdio", "argv": ["srv", "--token", "[redacted]"],
                                                    "env": {"API_KEY": "[redacted]", "MODE": "x"}}})
    assert target.rerun_problem() == ("the capture's target was saved with secrets redacted (srv --token "
                                      "'[redacted]', API_KEY=[redacted]), so it cannot be rerun as recorded")


def test_a_recorded_http_target_keeps_its_headers_but_not_the_user_agent():
    target = Target.from_capture_header({"target": {"transport": "streamable-http", "url": "http://127.0.0.1:1/mcp",
                                                    "headers": {"User-Agent": "mcp-inspector", "X-Team": "a"}}})
    assert target.rerun_problem() is None
    assert target.headers == {"X-Team": "a"}
    assert target.describe_lines() == ["URL: http://127.0.0.1:1/mcp (transport streamable-http)", "headers: X-Team: a"]
    hidden = Target.from_capture_header({"target": {"transport": "auto", "url": "http://h/mcp",
                                                    "headers": {"Authorization": "[redacted]"}}})
    assert "Authorization: [redacted]" in (hidden.rerun_problem() or "")


def test_a_capture_without_a_target_cannot_run_as_recorded():
    assert Target.from_capture_header({}).rerun_problem() == "the capture does not say which server was recorded"
    assert Target.from_capture_header({"target": {"transport": "stdio"}}).rerun_problem() == \
        "the capture does not say which command was recorded"


# -- the handler ------------------------------------------------------------------------------------------


def test_the_handler_answers_by_method_in_order_then_says_it_has_no_more():
    handler = RecordedAnswers({"sampling/createMessage": [RecordedAnswer(3, True, result={"text": "one"}),
                                                          RecordedAnswer(5, True, error={"code": -1, "message": "no",
                                                                                         "data": {"why": 1}})]})

    async def ask() -> list[Any]:
        out: list[Any] = [await handler("sampling/createMessage", {})]
        for method in ("sampling/createMessage", "sampling/createMessage", "elicitation/create"):
            with pytest.raises(RpcError) as caught:
                await handler(method, {})
            out.append((caught.value.code, caught.value.message, caught.value.data))
        return out

    assert asyncio.run(ask()) == [
        {"text": "one"},
        (-1, "no", {"why": 1}),
        (-32601, "mcp-inspector replay has no recorded answer for this sampling/createMessage (the recording "
                 "answered 2 of them)", None),
        (-32601, "mcp-inspector replay has no recorded answer for this elicitation/create (the recording answered "
                 "0 of them)", None),
    ]


def test_a_request_the_recording_never_answered_stays_unanswered_until_the_replay_stops():
    handler = RecordedAnswers({"elicitation/create": [RecordedAnswer(None, False)]})

    async def ask() -> bool:
        task = asyncio.ensure_future(handler("elicitation/create", {}))
        done, _ = await asyncio.wait([task], timeout=0.05)
        assert not done
        handler.stop()
        await asyncio.wait([task])
        return task.cancelled()

    assert asyncio.run(ask())
