"""The official MCP Inspector's request history as capture material.

The official inspector (https://github.com/modelcontextprotocol/inspector) keeps its History panel as a list of
``{"request": ..., "response": ...}`` entries (``requestHistory`` in its client), where ``request`` is the
JSON of the request it sent (``{"method", "params"}``) and ``response`` the JSON of the result it got, each as
a JSON string or, in a saved copy, as an object. It holds no ids, no times and no target: the capture numbers the
requests 1, 2, ... in order, gives each its response right after it, and names no server (replay it with
``--url URL`` or ``-- CMD``). Accepted shapes: that list, or an object holding it under ``requestHistory`` or
``history``.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_document


class HistoryError(ValueError):
    """Not an inspector history; ``str()`` is a sentence."""


def _entries(data: Any) -> list[Any] | None:
    if isinstance(data, dict):
        data = data.get("requestHistory", data.get("history"))
    return data if isinstance(data, list) else None


def looks_like_history(data: Any) -> bool:
    entries = _entries(data)
    return bool(entries) and all(isinstance(e, dict) and "request" in e for e in entries or [])


def _json(value: Any, what: str, index: int) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise HistoryError(f"history entry {index}: its {what} is not JSON") from None
    return value


def events_from_history(data: Any) -> list[tuple[list[Event], float]]:
    """Batches of events (a request, then its response) with wall times one millisecond apart."""
    entries = _entries(data)
    if not entries:
        raise HistoryError("this is not an MCP Inspector history: no list of {request, response} entries")
    batches: list[tuple[list[Event], float]] = []
    for index, entry in enumerate(entries, start=1):
        try:
            batches += _entry_events(entry, index)
        except RecursionError:  # Python's json reads and writes about a thousand levels: the stack ends there
            raise HistoryError(f"history entry {index} is nested too deep to read") from None
    return batches


def _entry_events(entry: Any, index: int) -> list[tuple[list[Event], float]]:
    """One entry's request, then its response when it has one."""
    batches: list[tuple[list[Event], float]] = []
    if not isinstance(entry, dict) or "request" not in entry:
        raise HistoryError(f"history entry {index} has no request")
    request = _json(entry["request"], "request", index)
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        raise HistoryError(f"history entry {index}: its request names no method")
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": index, "method": request["method"]}
    if request.get("params") is not None:
        message["params"] = request["params"]
    sent = decode_document(json.dumps(message, ensure_ascii=False).encode("utf-8"), Direction.C2S)
    batches.append(([sent], index * 0.002))
    if entry.get("response") is None:
        return batches
    response = _json(entry["response"], "response", index)
    answer: dict[str, Any] = {"jsonrpc": "2.0", "id": index}
    if isinstance(response, dict) and isinstance(response.get("error"), dict) and "result" not in response:
        answer["error"] = response["error"]
    else:
        answer["result"] = response
    received = decode_document(json.dumps(answer, ensure_ascii=False).encode("utf-8"), Direction.S2C)
    batches.append(([received], index * 0.002 + 0.001))
    return batches
