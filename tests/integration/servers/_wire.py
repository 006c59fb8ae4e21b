"""Stdlib-only helpers shared by the misbehaving test servers: read requests, write replies, byte-exactly.

Each misbehaving server is a short script that imports this (its own folder is first on ``sys.path``) and
breaks the stdio rules in one way. ``serve()`` is the well-behaved part: it answers ``initialize`` and a
few requests, so each script only has to add its misbehaviour.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

PROTOCOL_VERSION = "2025-11-25"

stdin = sys.stdin.buffer
stdout = sys.stdout.buffer
stderr = sys.stderr.buffer


def write_raw(data: bytes, stream: Any = None) -> None:
    """Write bytes exactly as given and flush."""
    stream = stream or stdout
    stream.write(data)
    stream.flush()


def send(obj: Any) -> None:
    """One message on its own line, as stdio wants it."""
    write_raw(json.dumps(obj, separators=(",", ":")).encode("utf-8") + b"\n")


def log(text: str) -> None:
    write_raw(text.encode("utf-8") + b"\n", stderr)


def messages() -> Iterator[dict[str, Any]]:
    """The client's messages, one per line, until stdin closes."""
    for line in stdin:
        if line.strip():
            yield json.loads(line)


def initialize_result(request: dict[str, Any], name: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {
            "protocolVersion": request.get("params", {}).get("protocolVersion", PROTOCOL_VERSION),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "0.0.1"},
        },
    }


def default_reply(request: dict[str, Any], name: str) -> dict[str, Any]:
    method = request.get("method")
    if method == "initialize":
        return initialize_result(request, name)
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"tools": []}}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {}}
    return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}}


def serve(name: str, reply: Callable[[dict[str, Any]], Any] | None = None) -> None:
    """Answer every request until stdin closes; ``reply`` may return a message to send instead of the default
    (or None for the default)."""
    for message in messages():
        if "method" not in message or "id" not in message:
            continue  # notifications and responses need no answer
        answer = reply(message) if reply is not None else None
        send(answer if answer is not None else default_reply(message, name))
