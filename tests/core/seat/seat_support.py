"""Talking to the seat's MCP server in this process, on bytes in and bytes out (tests/core/seat)."""

from __future__ import annotations

import io
import json
from typing import Any

from inspector.core.seat.server import SeatServer


def ask(seat: tuple[SeatServer, io.BytesIO], method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The seat's answer to one request (``params`` left out when None)."""
    server, out = seat
    out.seek(0)
    out.truncate()
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        message["params"] = params
    server.handle_line(json.dumps(message).encode())
    server.join()  # a tool call answers from a thread of its own
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer
