"""The exact JSON-RPC lines of a capture, each way, for feeding another tool.

Contract: the raw bytes of every message event (``kind: message``) in capture order, each followed by
``\\n``, so the output is newline-delimited JSON-RPC as a stdio peer would have sent it. ``direction``
``sent`` keeps the client's messages, ``received`` the server's, ``both`` all of them. Framing errors are not
messages and are left out (``--to markdown`` shows them with their bytes). Messages an intercept rule acted on
are kept as the capture holds them (an original and what it was changed into, a dropped message, the
inspector's answer): the format has no room for their marks, which ``show`` and the other exports give.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from inspector.core.wire.events import Direction, Event, Kind

DIRECTIONS = {"sent": (Direction.C2S,), "received": (Direction.S2C,), "both": (Direction.C2S, Direction.S2C)}


def jsonrpc_lines(events: Iterable[Event], direction: str = "both") -> Iterator[bytes]:
    """Each message's bytes with a newline, in order, for ``direction`` (``sent``, ``received``, ``both``)."""
    wanted = DIRECTIONS[direction]
    for event in events:
        if event.kind == Kind.MESSAGE and event.dir in wanted:
            yield event.raw + b"\n"
