"""``Session.restart`` (reload on save, issue 45): the session goes on with a new connection, its events numbered
and saved on from where they were; what waited for the old server fails, and nothing it left pending stays so. In
memory: no process."""

from __future__ import annotations

import asyncio

import pytest
from helpers import until
from intercept.test_intercepting_transport import Loopback

from inspector.core.capture.reader import read_capture
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed


def test_a_restarted_session_sends_to_the_new_connection_and_fails_what_waited_for_the_old(tmp_path):
    async def main() -> None:
        old, new = Loopback(), Loopback()
        writer = CaptureWriter(tmp_path / "c.jsonl", make_header(old.describe()))
        session = Session(old, capture=writer)
        await session.start()
        waiting = asyncio.ensure_future(session.request("tools/call", {"name": "slow"}, timeout=30))
        await until(lambda: old.sent, 5, "the call to be sent")
        assert len(session.pending_requests()) == 1

        await session.restart(new)
        with pytest.raises(TransportClosed, match="the server restarted"):
            await waiting
        assert old.closed and not new.closed
        assert session.pending_requests() == []
        asking = asyncio.ensure_future(session.request("ping", timeout=30))
        await until(lambda: new.sent, 5, "the ping to be sent")
        assert b'"method":"ping"' in new.sent[0] and len(old.sent) == 1
        new.arrive(b'{"jsonrpc":"2.0","id":2,"result":{}}')
        answer = await asking
        assert answer.rpc is not None and answer.rpc.id == 2
        await session.close()
        writer.close()

    asyncio.run(main())
    events = read_capture(tmp_path / "c.jsonl").events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # one numbering across both connections
    assert [e.method for e in events if e.dir == "c2s"] == ["tools/call", "ping"]
