"""One HTTP/1.1 client connection on the server side, h11's state machine over an asyncio stream: what the HTTP
tap's listening side (:mod:`inspector.core.tap.http_proxy`) and ``serve --listen``
(:mod:`inspector.core.serve.http`) each build their exchanges on."""

from __future__ import annotations

import asyncio
from typing import Any

import h11

#: Bytes read at a time.
READ_SIZE = 64 * 1024
#: The largest request head (request line and headers) a client may send.
MAX_HEAD = 64 * 1024


class H11Peer:
    """A client connection: :meth:`next_event` reads until h11 has an event (a ``100 Continue`` sent when the
    client waits for one); :meth:`send` writes what h11 makes of an event. ``closed``: the client's side reached
    EOF."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.closed = False

    async def next_event(self) -> Any:
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            if self.conn.they_are_waiting_for_100_continue:
                self.send(h11.InformationalResponse(status_code=100, headers=[]))
            data = await self.reader.read(READ_SIZE)
            if not data:
                self.closed = True
            self.conn.receive_data(data)

    def send(self, event: Any) -> None:
        data = self.conn.send(event)
        if data:
            self.writer.write(data)
