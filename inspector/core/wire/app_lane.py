"""The ``app`` lane of a capture: the events an MCP App and its host make (docs/capture-format.md, "The app
lane").

- a message between the app and the host: kind ``app``, ``dir`` ``a2h`` (app to host) or ``h2a``, ``raw`` the
  message as JSON text (postMessage carries objects, not bytes: ``raw`` is what the bridge serialised), and
  ``data.app``, the number of the app in the session; a response has ``reply_to``, ``latency`` and
  ``request_method`` as a wire response does, so the timeline pairs the rows;
- what happened to the app: kind ``app``, no ``dir``, ``data.what``: ``rendered`` (the resource, its policy and
  the origin it got), ``blocked`` (a request the policy stopped), ``console`` (a line of the app's console),
  ``link`` (a ``ui/open-link`` and whether it was opened), ``permission`` (a browser permission asked for),
  ``crashed``, ``unresponsive`` (its renderer answered nothing), ``oversize`` (a message over ``--max-message``,
  not passed on: ``total_bytes``, ``limit``), ``closed``.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Finding, Kind

#: ``data.what`` of the app events that are not messages
RENDERED, BLOCKED, CONSOLE, LINK, PERMISSION, CRASHED, CLOSED, OVERSIZE, UNRESPONSIVE = (
    "rendered", "blocked", "console", "link", "permission", "crashed", "closed", "oversize", "unresponsive")


def encode(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", errors="surrogatepass")


def message_event(direction: str, raw: bytes, app: int, findings: list[Finding] | None = None,
                  **data: Any) -> Event:
    """A message of the app lane: ``raw`` JSON text, classified as JSON-RPC (what is wrong with it among the
    findings)."""
    assert direction in (Direction.A2H, Direction.H2A)
    found = list(findings or [])
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        obj = None
    rpc = None
    if isinstance(obj, (dict, list)):
        rpc, problems = jsonrpc.classify(obj)
        found += problems
    else:
        found.append(Finding("app-not-jsonrpc", "the app posted something that is not a JSON-RPC message "
                                                "(ignored)", "warning"))
    return Event(Kind.APP, raw=raw, dir=direction, rpc=rpc, findings=found, data={"app": app, **data})


def happening(what: str, app: int, findings: list[Finding] | None = None, **data: Any) -> Event:
    """An app event that is no message: ``what`` happened (one of the constants above)."""
    return Event(Kind.APP, findings=list(findings or []), data={"what": what, "app": app, **data})


def describe(data: Any) -> str:
    """One line for an app event that is no message (the timeline's summary, ``show``)."""
    what = data.get("what") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(what, str):
        return ""
    if what == RENDERED:
        return f"app {data.get('app')} rendered {data.get('resource')} at {data.get('origin')}"
    if what == BLOCKED:
        by = "the browser (its CSP)" if data.get("by") == "browser" else "the host"
        return f"blocked by {by}: {data.get('use', '')} {data.get('url', '')} ({data.get('reason', '')})"
    if what == CONSOLE:
        return f"console {data.get('level', '')}: {data.get('text', '')}"
    if what == LINK:
        return f"ui/open-link {data.get('url', '')}: {'opened' if data.get('opened') else 'not opened'}" + (
            f" ({data['reason']})" if data.get("reason") else "")
    if what == PERMISSION:
        return f"permission {data.get('permission', '')}: {'granted' if data.get('granted') else 'denied'}"
    if what == CRASHED:
        return f"the app's renderer ended: {data.get('reason', '')}"
    if what == OVERSIZE:
        return f"app {data.get('app')}: {data.get('reason', '')}"
    if what == UNRESPONSIVE:
        return f"the app's renderer stopped responding ({data.get('reason', '')})"
    if what == CLOSED:
        return f"app {data.get('app')} closed ({data.get('reason', '')})"
    return what
