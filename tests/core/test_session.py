"""Session: handshake eras, server requests answered, raw sends, and a server that dies mid-request.

Driven against real subprocesses: the demo server and small scripted servers in tests/core/servers/.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
import warm_python

from inspector.core.session.outcomes import RequestTimeout, result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Kind
from inspector.core.wire.framing import LineDecoder

SERVERS = Path(__file__).parent / "servers"
DEMO = warm_python.module_command("inspector.demo")
ROOT = Path(__file__).resolve().parents[2]


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


async def open_session(argv, **kwargs) -> Session:
    session = Session(StdioTransport(argv, cwd=str(ROOT)), **kwargs)
    await session.start()
    return session


def sent(session: Session) -> list[dict]:
    return [e.json() for e in session.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S]


def test_auto_handshake_speaks_2026_07_28_to_a_modern_server_and_puts_meta_on_every_request():
    async def scenario():
        session = await open_session(DEMO)
        try:
            info = await session.handshake("auto")
            response = await session.request("tools/list")
            return info, result_of(response), sent(session)
        finally:
            await session.close()

    info, (result, error), messages = run(scenario())
    assert (info.era, info.protocol_version, info.name) == ("modern", "2026-07-28", "mcp-inspector-demo")
    assert error is None and "echo" in [tool["name"] for tool in result["tools"]]
    assert [m["method"] for m in messages] == ["server/discover", "tools/list"]
    for message in messages:
        meta = message["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert meta["io.modelcontextprotocol/clientCapabilities"] == {}
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcp-inspector"


def test_auto_handshake_falls_back_to_initialize_when_discover_gets_a_legacy_error():
    async def scenario():
        session = await open_session([sys.executable, str(SERVERS / "asks_back.py")])
        try:
            return await session.handshake("auto"), session.events
        finally:
            await session.close()

    info, events = run(scenario())
    assert (info.era, info.protocol_version, info.name) == ("legacy", "2025-11-25", "asks-back")
    notes = [e.data["text"] for e in events if e.kind == Kind.NOTE]
    assert any("error -32601: the server is legacy, using initialize" in n for n in notes)
    c2s = [e.method for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S and e.method]
    assert c2s[:3] == ["server/discover", "initialize", "notifications/initialized"]


def test_auto_handshake_falls_back_to_initialize_when_discover_gets_no_answer_within_the_bound():
    async def scenario():
        session = await open_session([sys.executable, str(SERVERS / "silent_legacy.py")])
        try:
            return await session.handshake("auto", timeout=1.0), session.events
        finally:
            await session.close()

    info, events = run(scenario())
    assert info.era == "legacy"
    # the probe gets half the handshake's bound: initialize, the other half
    notes = [e.data["text"] for e in events if e.kind == Kind.NOTE]
    assert any("no answer to server/discover within 0.5 s" in text for text in notes)
    # the unanswered probe is let go in silence when initialize succeeds: no failure, no notifications/cancelled
    assert not any(e.data.get("failure") for e in events if e.kind == Kind.NOTE), notes
    assert [e.method for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S] == [
        "server/discover", "initialize", "notifications/initialized"]


def test_a_modern_server_slower_to_start_than_the_probe_is_still_found_modern_by_its_late_answer():
    # the SDK's MCPServer takes ~2 s to start on a busy machine: its discover answer came after the probe had
    # given up, and the initialize sent meanwhile was refused (-32022), which failed the whole handshake
    async def scenario():
        session = await open_session([sys.executable, str(SERVERS / "late_modern.py")])
        try:
            info = await session.handshake("auto", timeout=4.0)
            listed = await session.request("tools/list", timeout=5)
            return info, listed, session.events
        finally:
            await session.close()

    info, listed, events = run(scenario())
    assert (info.era, info.protocol_version, info.name) == ("modern", "2026-07-28", "late-modern")
    notes = [e.data["text"] for e in events if e.kind == Kind.NOTE]
    assert any("no answer to server/discover within 2 s" in text for text in notes), notes
    assert any("server/discover was answered after the probe stopped waiting: the server is modern" in text
               for text in notes), notes
    assert result_of(listed) == ({"resultType": "complete", "tools": [], "cacheScope": "private", "ttlMs": 0}, None)
    sent = [e for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S]
    assert [e.method for e in sent] == ["server/discover", "initialize", "tools/list"]
    assert "io.modelcontextprotocol/protocolVersion" in sent[-1].json()["params"]["_meta"]  # spoken as modern


def test_legacy_handshake_sends_the_chosen_revision_then_initialized():
    async def scenario():
        session = await open_session(DEMO)
        try:
            info = await session.handshake("legacy", "2025-03-26")
            return info, sent(session)
        finally:
            await session.close()

    info, messages = run(scenario())
    assert info.protocol_version == "2025-03-26"
    assert messages[0]["method"] == "initialize" and messages[0]["params"]["protocolVersion"] == "2025-03-26"
    assert messages[1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_server_requests_are_answered_ping_roots_and_a_headless_error_for_the_rest():
    roots = [{"uri": "file:///work", "name": "work"}]

    async def scenario():
        session = await open_session([sys.executable, str(SERVERS / "asks_back.py")], roots=roots)
        answered = asyncio.Event()
        # the server asks three questions right after initialized; our answers are c2s responses
        session.listeners.append(
            lambda batch: answered.set() if sum(1 for m in sent(session) if "method" not in m) >= 3 else None)
        try:
            await session.handshake("legacy")
            await asyncio.wait_for(answered.wait(), 10)
            report = await session.request("report")
            return result_of(report)[0]
        finally:
            await session.close()

    answers = run(scenario())
    assert answers["s1"]["result"] == {}
    assert answers["s2"]["result"] == {"roots": roots}
    assert answers["s3"]["error"]["code"] == -32601
    assert "sampling/createMessage" in answers["s3"]["error"]["message"]


def test_a_message_with_a_raw_newline_is_refused_but_raw_mode_sends_it_byte_for_byte():
    async def scenario():
        transport = StdioTransport(DEMO, cwd=str(ROOT))  # the transport itself refuses it: the session never would
        session = Session(transport)
        await session.start()
        try:
            await session.handshake("legacy")
            with pytest.raises(TransportError, match="raw newline"):
                await transport.send(b'{"jsonrpc":"2.0",\n"method":"x"}')
            await session.send_raw(b'{"jsonrpc":"2.0","id":99,\n"method":"ping"}\nnot json\n')
            await session.request("ping")
            return [e for e in session.events if e.dir == Direction.C2S and e.kind != Kind.STDERR]
        finally:
            await session.close()

    c2s = run(scenario())
    stdin = b"".join(e.raw + e.eol for e in c2s)
    assert b'{"jsonrpc":"2.0","id":99,\n"method":"ping"}\nnot json\n' in stdin
    assert [e.raw for e in c2s if e.kind == Kind.FRAMING_ERROR][-1] == b"not json"


def test_lines_sent_with_their_events_are_recorded_with_them_unless_a_line_was_left_open_before():
    """send_decoded (a load run's writes) records the caller's events for its lines; after a raw send that left a
    line open, its bytes continue that line, so they are decoded as they are, not taken as the caller says."""
    line = b'{"jsonrpc":"2.0","id":41,"method":"ping"}'
    given = LineDecoder(Direction.C2S).feed(line + b"\n")

    async def scenario():
        session = await open_session(DEMO)
        try:
            await session.handshake("legacy")
            await session.send_decoded(line + b"\n", given)
            await session.send_raw(b'{"jsonrpc":"2.0",')
            await session.send_decoded(line + b"\n", given)
            return [e for e in session.events if e.dir == Direction.C2S and e.kind != Kind.STDERR]
        finally:
            await session.close()

    c2s = run(scenario())
    assert any(e is given[0] for e in c2s)
    joined = [e for e in c2s if e.raw.startswith(b'{"jsonrpc":"2.0",{')]
    assert len(joined) == 1 and joined[0] is not given[0] and joined[0].kind == Kind.FRAMING_ERROR

def test_a_server_that_exits_while_a_request_waits_fails_it_with_the_exit_code_and_stderr():
    async def scenario():
        session = await open_session(DEMO)
        try:
            await session.handshake("legacy")
            with pytest.raises(TransportClosed) as caught:
                await session.request("tools/call", {"name": "exit", "arguments": {"code": 4, "message": "bye now"}})
            return str(caught.value)
        finally:
            await session.close()

    text = run(scenario())
    assert "exited with code 4 before answering tools/call" in text
    assert "bye now" in text


def test_a_request_without_an_answer_times_out_with_a_sentence_and_a_note():
    async def scenario():
        session = await open_session([sys.executable, str(SERVERS / "silent_legacy.py")])
        try:
            with pytest.raises(RequestTimeout, match=r"no response to tools/list within 0.5 s"):
                await session.request("tools/list", timeout=0.5)
            return [e.data["text"] for e in session.events if e.kind == Kind.NOTE]
        finally:
            await session.close()

    assert run(scenario()) == ["no response to tools/list within 0.5 s; raise --timeout to wait longer"]


def test_listeners_get_each_batch_after_the_session_holds_it():
    seen: list[tuple[int, int]] = []

    async def scenario():
        session = await open_session(DEMO)
        session.listeners.append(lambda batch: seen.append((batch[-1].seq, len(session.events))))
        try:
            await session.handshake("legacy")
        finally:
            await session.close()
        return session

    session = run(scenario())
    assert seen and all(seq == held for seq, held in seen)
    assert session.events[-1].data["what"] == "exited"


@pytest.mark.parametrize("line, expected", [
    (b'{"jsonrpc":"2.0","id":2,"result":{"tools":[' + b"x" * 2000 + b"]}}", (True, 2)),  # Python SDK order
    (b'{"result":{"tools":[' + b"x" * 2000 + b']},"jsonrpc":"2.0","id":"a-7"}', (True, "a-7")),  # TypeScript SDK
    (b'{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{' + b"x" * 2000 + b"}}", (False, None)),
    (b'{"jsonrpc":"2.0","result":{"items":[{"id":2}' + b"x" * 2000 + b"]}}", (False, None)),  # no top-level id
])
def test_the_id_of_an_answer_too_long_to_keep_is_found_in_its_head_or_tail_and_a_request_is_not_an_answer(
        line, expected):
    from inspector.core.session.session import _oversize_message_id
    from inspector.core.wire.framing import LineDecoder

    [event] = LineDecoder(Direction.S2C, max_line_bytes=1000).feed(line + b"\n")
    assert "oversize" in event.data
    assert _oversize_message_id(event) == expected


def test_no_module_but_the_session_reaches_into_a_sessions_transport_or_correlator():
    # the UI, replay, record and the CLI ask the session (closed, diagnosis, ending, pending_requests, settle...)
    reach = re.compile(r"(?<!core\.)\bsession\._?(transport|correlator|pipeline)\b")  # not the module path
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for folder in ("inspector", "benchmarks", "scripts") for path in sorted((ROOT / folder).rglob("*.py"))
             if path != ROOT / "inspector" / "core" / "session" / "session.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if reach.search(line)]
    assert found == []



def test_a_tool_that_fails_is_saved_as_a_tool_error_warning_and_not_counted_as_a_protocol_finding(tmp_path):
    """The demo's add tool answers bad arguments with ``isError: true``; the finding is on the response in the
    capture file (added before it was saved), and the session's protocol findings stay at zero."""
    from inspector.core.capture import read_capture
    from inspector.core.capture.writer import CaptureWriter, make_header

    path = tmp_path / "tool-error.jsonl"

    async def scenario():
        writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": DEMO}))
        session = await open_session(DEMO, capture=writer)
        try:
            await session.handshake("legacy")
            response = await session.request("tools/call", {"name": "add", "arguments": {"a": "two", "b": 1}})
            return result_of(response), dict(session.counts)
        finally:
            await session.close()
            writer.close()

    (result, error), counts = run(scenario())
    assert error is None and result["isError"] is True
    assert counts["findings"] == 0, "a tool's failure is not the server breaking the protocol"
    saved = [e for e in read_capture(path).events if e.data.get("request_method") == "tools/call"]
    assert len(saved) == 1
    assert [(f.code, f.severity) for f in saved[0].findings] == [("tool-error", "warning")]


def test_a_message_that_meets_a_server_already_gone_is_named_in_the_sentence():
    # a server that exits right after a reply is often noticed only when the next message is written: the
    # sentence names that message (the misbehaving-server test met this on a loaded machine)
    dies = [sys.executable, str(ROOT / "tests/integration/servers/dies_after_reply_server.py")]

    async def scenario():
        session = await open_session(dies)
        try:
            await session.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                 "clientInfo": {"name": "t", "version": "1"}}, inject_meta=False)
            await session.wait_closed()  # the exit is known before the next message
            with pytest.raises(TransportClosed) as raised:
                await session.notify("notifications/initialized")
            return str(raised.value)
        finally:
            await session.close()

    sentence = run(scenario())
    assert sentence.startswith("notifications/initialized could not be sent: the server exited with code 0"), sentence


#: How long a cancelled request may take to end: it ends at once; the request itself would wait 30 s.
CANCELLED_REQUEST_ENDS = 10


def test_a_cancellation_that_comes_the_moment_the_request_is_written_ends_the_request_at_once():
    # Ctrl-C in a command: asyncio.run cancels the main task, which under load can happen between the write of a
    # request and the end of its send. Python 3.11's asyncio.wait_for lost that cancellation (the send had ended)
    # and the command went on waiting for the silent server's answer (CPython issue 86296). Here the
    # cancellation comes from a listener, which the send calls as it writes the request: always in that window.
    async def scenario():
        session = await open_session([sys.executable, str(SERVERS / "silent_legacy.py")])
        try:
            request = asyncio.ensure_future(session.request("tools/list", timeout=30))

            def cancel_once_written(batch):
                if any(e.kind == Kind.MESSAGE and e.dir == Direction.C2S for e in batch):
                    request.cancel()

            session.listeners.append(cancel_once_written)
            await asyncio.wait([request], timeout=CANCELLED_REQUEST_ENDS)
            try:
                return request.cancelled(), [m["method"] for m in sent(session)]
            finally:
                request.cancel()
        finally:
            await session.close()

    cancelled, written = run(scenario())
    assert written == ["tools/list"]
    assert cancelled, f"the request still waited {CANCELLED_REQUEST_ENDS} s after it was cancelled"
