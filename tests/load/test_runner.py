"""A load run's requests (inspector.core.load.runner): on stdio each batch is written with the events its lines
make, built from one template instead of decoding every line again; those events are the decoder's, exactly, so
the capture is the same byte for byte."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from inspector.core.capture.format import event_to_line
from inspector.core.load.runner import LoadPlan, LoadRun, request_template
from inspector.core.session.session import Session
from inspector.core.transports.base import Transport
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import LineDecoder


class _Recorder(Transport):
    """A transport that keeps what a load run hands it (no server: the events are what is checked here)."""

    name = "stdio"

    def __init__(self) -> None:
        super().__init__()
        self.decoded: list[tuple[bytes, list[Event]]] = []
        self.raw: list[bytes] = []

    def describe(self) -> dict[str, Any]:
        return {"transport": "stdio"}

    async def start(self) -> None:
        return None

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        self.raw.append(data)

    async def send_decoded(self, data: bytes, events: list[Event]) -> None:
        self.decoded.append((data, events))

    async def close(self) -> None:
        return None

    @property
    def closed(self) -> bool:
        return False

    async def wait_closed(self) -> None:
        return None


@pytest.mark.parametrize(("method", "params"), [
    ("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}),
    ("tools/call", {"name": "echo", "arguments": {"text": "héllo \u2028 \"quoted\" \\ tab\t"}}),
    ("ping", None),
    ("notifications/progress", {"progressToken": 1}),  # a request with a notification's method: a finding
])
def test_the_events_a_load_run_writes_with_its_requests_are_the_decoders_byte_for_byte(method, params):
    transport = _Recorder()
    session = Session(transport, keep_events=False)
    run = LoadRun(session, LoadPlan(method, params, concurrency=7, requests=7), http=False, timeout=5.0)
    run._encode()
    asyncio.run(run._send(7, 0.0))
    [(data, events)] = transport.decoded
    assert transport.raw == []
    assert len(events) == 7
    decoded = LineDecoder(Direction.C2S).feed(data)
    assert events == decoded
    assert [event_to_line(e) for e in events] == [event_to_line(e) for e in decoded]


def test_a_request_line_the_decoder_does_not_read_as_one_clean_request_has_no_template():
    assert request_template(b'{"jsonrpc":"2.0","id":0,"method":"ping"}\n') is not None
    assert request_template(b'{"jsonrpc":"2.0","id":0,"method":"ping"}\r\n') is None
    assert request_template(b'{"jsonrpc":"2.0","id":0,"result":{}}\n') is None
    assert request_template(b'{"jsonrpc":"2.0","id":0,"method":"ping"}') is None


def test_every_listener_sees_a_batch_of_answers_before_the_requests_that_refill_it():
    """On stdio the answers are refilled from the session's after_batch hook, without a turn of the loop: still,
    a listener later in the list than the run's own sees each batch of answers before the requests sent for it
    (seqs in order), and never more than the concurrency wait at once."""
    from pathlib import Path

    from inspector.core.transports.stdio import StdioTransport

    server = Path(__file__).parent / "servers" / "load_server.py"
    seen: list[int] = []

    async def scenario() -> dict[str, Any]:
        await session.start()
        try:
            await session.handshake("legacy")
            run = LoadRun(session, LoadPlan("tools/call", {"name": "echo", "arguments": {"text": "hi"}},
                                            concurrency=5, requests=400), http=False, timeout=10.0)
            running = asyncio.ensure_future(run.run())
            await asyncio.sleep(0)  # the run has added its listener and sent its first requests
            session.listeners.append(lambda events: seen.extend(e.seq for e in events))
            return await running
        finally:
            await session.close()

    session = Session(StdioTransport([sys.executable, str(server)]), keep_events=False)
    figures = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert (figures["requests"], figures["errors"]) == (400, 0)
    assert seen == sorted(seen) and len(seen) == len(set(seen)) and len(seen) >= 790
