"""``Session.restart`` (reload on save, issue 45): the session goes on with a new connection, its events numbered
and saved on from where they were; the requests the old server had not answered are sent again to the new one
after its handshake (or fail saying it did not start), and the lists the new handshake replaces are not. In
memory: no process."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers import until
from intercept.test_intercepting_transport import Loopback

from inspector.core.capture.reader import read_capture
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.session.outcomes import RequestCancelled
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed
from inspector.core.wire.events import Event, Kind, Lifecycle

INITIALIZED = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s"}}


class Server(Loopback):
    """A server in memory that answers ``initialize`` by itself (``up=False``: exits instead), and whose end is
    an ``exited`` lifecycle event, as a stdio server's is; as the Python SDK's, it answers the requests in flight
    with an error when it is stopped."""

    def __init__(self, up: bool = True) -> None:
        super().__init__()
        self.up = up
        self.in_flight: list[object] = []

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        await super().send(data, raw=raw)
        message = json.loads(data)
        if message.get("method") == "tools/call":
            self.in_flight.append(message["id"])
        if message.get("method") == "initialize":
            if self.up:
                self.arrive(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": INITIALIZED}).encode())
            else:
                await self.close()

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            for msg_id in self.in_flight:
                self.arrive(json.dumps({"jsonrpc": "2.0", "id": msg_id,
                                        "error": {"code": -32000, "message": "Connection closed"}}).encode())
            self.emit_many([Event(Kind.LIFECYCLE, data={"what": Lifecycle.EXITED, "code": 1})])

    def methods(self) -> list[str]:
        return [json.loads(line).get("method") for line in self.sent]


async def connected(tmp_path, old: Server) -> tuple[Session, CaptureWriter]:
    writer = CaptureWriter(tmp_path / "c.jsonl", make_header(old.describe()))
    session = Session(old, capture=writer)
    await session.start()
    await session.handshake("legacy")
    return session, writer


def test_a_call_pending_at_a_restart_is_sent_again_to_the_new_server_and_gets_its_answer(tmp_path):
    async def main() -> None:
        old, new = Server(), Server()
        session, writer = await connected(tmp_path, old)
        waiting = asyncio.ensure_future(session.request("tools/call", {"name": "slow"}, timeout=30))
        listing = asyncio.ensure_future(session.request("tools/list", timeout=30))
        await until(lambda: len(old.sent) == 4, 5, "the call and the listing to be sent")
        call_id = json.loads(old.sent[2])["id"]

        await session.restart(new)
        with pytest.raises(TransportClosed, match="the server restarted: tools/list is not sent again"):
            await listing  # the Explorer lists again after the new handshake
        assert not waiting.done()  # the old server's exit failed nothing that is sent again
        await session.handshake("legacy")
        assert new.methods() == ["initialize", "notifications/initialized", "tools/call"]
        assert json.loads(new.sent[2]) == json.loads(old.sent[2])  # the same request, the same id
        new.arrive(json.dumps({"jsonrpc": "2.0", "id": call_id, "result": {"content": [], "new": True}}).encode())
        answer = await waiting
        assert answer.json()["result"]["new"] is True
        assert session.pending_requests() == []
        await session.close()
        writer.close()

    asyncio.run(main())
    events = read_capture(tmp_path / "c.jsonl").events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # one numbering across both connections
    calls = [e for e in events if e.method == "tools/call"]
    assert len(calls) == 2 and "resend_of" not in calls[0].data
    assert calls[1].data["resend_of"] == calls[0].seq  # the resend is a message of its own, marked
    answer = next(e for e in events if e.dir == "s2c" and e.data.get("reply_to") == calls[1].seq)
    assert not answer.findings  # paired with the resend: no reused or unknown id
    stopped = next(e for e in events if e.dir == "s2c" and e.data.get("reply_to") == calls[0].seq)
    assert "Connection closed" in stopped.raw.decode()  # the old server's word as it was stopped: kept, no answer
    note = next(e for e in events if e.kind == Kind.NOTE and "sent again to the new server" in e.data["text"])
    assert note.seq < calls[1].seq and note.data["request_ids"] == [calls[0].rpc.id]


def test_a_call_pending_at_a_restart_whose_new_server_fails_to_start_fails_saying_so(tmp_path):
    async def main() -> None:
        old, new = Server(), Server(up=False)
        session, writer = await connected(tmp_path, old)
        waiting = asyncio.ensure_future(session.request("tools/call", {"name": "slow"}, timeout=30))
        await until(lambda: len(old.sent) == 3, 5, "the call to be sent")

        await session.restart(new)
        with pytest.raises(TransportClosed):
            await session.handshake("legacy", timeout=5)
        with pytest.raises(TransportClosed, match="^the server restarted and failed to start: "):
            await waiting
        assert new.methods() == ["initialize"]  # nothing sent again to a server that is not up
        await session.close()
        writer.close()

    asyncio.run(main())


def test_a_call_cancelled_while_the_server_restarts_is_not_sent_again(tmp_path):
    async def main() -> None:
        old, new = Server(), Server()
        session, writer = await connected(tmp_path, old)
        waiting = asyncio.ensure_future(session.request("tools/call", {"name": "slow"}, timeout=30))
        await until(lambda: len(old.sent) == 3, 5, "the call to be sent")
        call_id = json.loads(old.sent[2])["id"]

        await session.restart(new)
        await session.cancel(call_id, "the user cancelled it")
        with pytest.raises(RequestCancelled):
            await waiting
        await session.handshake("legacy")
        assert new.methods() == ["initialize", "notifications/initialized"]
        await session.close()
        writer.close()

    asyncio.run(main())
