"""The twin over WebSocket (``serve CAPTURE --listen 127.0.0.1:PORT --transport websocket``): one JSON-RPC message
a text frame each way, on the ``mcp`` subprotocol (the inspector's own WebSocket transport,
:mod:`inspector.core.transports.websocket`, speaks it); each connection is a session with a twin of its own.

The frames are wsproto's (sans-io, with the optional ``websocket`` extra, as the tap's recorder uses it); without
it, :func:`available` says so in a sentence and ``serve`` refuses the transport before anything listens. A
message over ``--max-message`` closes the connection with 1009 (message too big) without being kept; a client
that stops reading holds its own connection only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

SUBPROTOCOL = "mcp"
READ_SIZE = 64 * 1024
#: What a client without the extra is told.
MISSING = ("--transport websocket needs the wsproto package (pip install 'mcp-inspector-desktop[websocket]'); "
           "serve the capture with --transport streamable-http (the default) or sse")


def available() -> str | None:
    """None when WebSocket can be served, else the sentence saying why not."""
    try:
        import wsproto  # noqa: F401 - only whether it is there
    except ImportError:
        return MISSING
    return None


def is_upgrade(headers: dict[bytes, bytes]) -> bool:
    connection = {t.strip().lower() for t in headers.get(b"connection", b"").split(b",")}
    return headers.get(b"upgrade", b"").lower() == b"websocket" and b"upgrade" in connection \
        and b"sec-websocket-key" in headers


def accept_headers(headers: dict[bytes, bytes]) -> list[tuple[str, str]]:
    """The 101 answer's headers: the key's accept token, and the ``mcp`` subprotocol when the client offered it."""
    from wsproto.utilities import generate_accept_token

    out = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
           ("Sec-WebSocket-Accept", generate_accept_token(headers[b"sec-websocket-key"]).decode("ascii"))]
    offered = {p.strip() for p in headers.get(b"sec-websocket-protocol", b"").decode("latin-1").split(",")}
    if SUBPROTOCOL in offered:
        out.append(("Sec-WebSocket-Protocol", SUBPROTOCOL))
    return out


async def serve_frames(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, trailing: bytes,
                       receive: Callable[[bytes, Callable[[bytes], None]], None], max_message: int) -> None:
    """Give each message of the client's to ``receive`` with a ``send`` (a message of the twin's, as a text frame,
    now or later) until the client closes (or the connection breaks)."""
    from wsproto.connection import Connection, ConnectionType
    from wsproto.events import BytesMessage, CloseConnection, Message, Ping, TextMessage
    from wsproto.frame_protocol import CloseReason

    ws = Connection(ConnectionType.SERVER, trailing_data=trailing)

    def send(line: bytes) -> None:
        if not writer.is_closing():
            writer.write(ws.send(TextMessage(line.decode("utf-8", "surrogateescape"))))

    parts: list[bytes] = []
    size = 0
    data = b""
    while True:
        for event in ws.events():
            if isinstance(event, Message):
                piece = event.data.encode("utf-8", "surrogateescape") if isinstance(event, TextMessage) \
                    else bytes(event.data) if isinstance(event, BytesMessage) else b""
                size += len(piece)
                if size > max_message:
                    writer.write(ws.send(CloseConnection(CloseReason.MESSAGE_TOO_BIG,
                                                         f"a message over --max-message ({max_message:,} bytes)")))
                    await writer.drain()
                    return
                parts.append(piece)
                if not event.message_finished:
                    continue
                message, parts, size = b"".join(parts), [], 0
                receive(message, send)
                await writer.drain()
            elif isinstance(event, Ping):
                writer.write(ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                writer.write(ws.send(event.response()))
                await writer.drain()
                return
        data = await reader.read(READ_SIZE)
        if not data:
            return
        ws.receive_data(data)
