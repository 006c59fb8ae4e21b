"""Events described in words: labels, method and id, one-line summaries, HTTP and lifecycle sentences.

Shared by ``show`` (the terminal timeline) and the desktop timeline, so both say the same thing. Server
content is untrusted: control characters (including ANSI escapes) are shown escaped, never passed on.
Summaries never parse more than :data:`SUMMARY_PARSE_LIMIT` bytes, so a 50 MB message costs a slice.
A capture may come from anyone: ``data`` details of any JSON type are described, never a reason to raise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from inspector.core.text import safe
from inspector.core.wire import jsonrpc
from inspector.core.wire.app_lane import describe as describe_app
from inspector.core.wire.events import Direction, Event, Finding, Kind, Lifecycle
from inspector.core.wire.framing import CUT_BY_STOP, cut_by_stop, server_broke_framing
from inspector.core.wire.intercepted import MARK, describe, mark_of

ARROWS = {Direction.C2S: "→", Direction.S2C: "←", Direction.A2H: "⇒", Direction.H2A: "⇐", None: " "}
SUMMARY_WIDTH = 100
#: Messages larger than this are summarised from their first bytes instead of being parsed.
SUMMARY_PARSE_LIMIT = 64 * 1024


def clip(text: Any, width: int = SUMMARY_WIDTH) -> str:
    shown = safe(str(text))
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def label(event: Event) -> str:
    """The kind column: request, response, error, notification, batch, framing, stderr, lifecycle, note; and
    "cut by stop" for the last line of a server that mcp-inspector's stop cut short (not the server's error)."""
    if event.kind == Kind.MESSAGE and event.rpc is not None:
        return event.rpc.kind
    if event.kind == Kind.APP:  # the MCP Apps lane: "app request", "app blocked", ...
        what = event.rpc.kind if event.rpc is not None else event.data.get("what", "message" if event.raw else "")
        return safe(f"app {what}".strip())
    if cut_by_stop(event):
        return "cut by stop"
    if event.kind == Kind.HTTP and event.data.get("phase") != "end" and "status" in event.data:
        return safe(f"http {event.data['status']}")
    return {Kind.FRAMING_ERROR: "FRAMING", Kind.STDERR: "stderr"}.get(event.kind) or safe(event.kind)


def method_and_id(event: Event) -> str:
    if event.rpc is None:
        return ""
    method = str(event.rpc.method or event.data.get("request_method") or "")
    if event.rpc.has_id:
        return f"{method} #{json.dumps(event.rpc.id)}".strip()
    if event.rpc.kind == jsonrpc.BATCH:
        return f"[{event.rpc.size} items]"
    return method


def summary(event: Event) -> str:
    if event.kind == Kind.FRAMING_ERROR:
        return f"{safe(str(event.reason))}  raw: {clip(repr(event.raw)[2:-1], 60)}"
    if event.kind == Kind.STDERR:
        return clip(event.text())
    if event.kind in (Kind.LIFECYCLE, Kind.NOTE):
        text = describe_lifecycle(event.data) if event.kind == Kind.LIFECYCLE else str(event.data.get("text", ""))
        return clip(text, 200)
    if event.kind == Kind.HTTP:
        return clip(describe_http(event.data), 200)
    if event.kind == Kind.APP and not event.raw:
        return clip(describe_app(event.data), 200)
    if event.kind == Kind.SSE:
        fields = " ".join(f"{k}={event.data[k]}" for k in ("event", "id", "retry") if k in event.data)
        extra = event.data.get("endpoint") or event.data.get("note") or event.text()
        return clip(f"[exchange {event.data.get('exchange')}] {fields}: {extra}", 200)
    caused = _caused_by_app(event)
    if event.size > SUMMARY_PARSE_LIMIT:
        return caused + clip(event.raw[:SUMMARY_WIDTH * 4].decode("utf-8", errors="replace")) + \
            f" ({event.size:,} bytes)"
    try:
        obj = event.json()
    except (ValueError, RecursionError):
        return clip(event.text())
    body: Any = obj
    if isinstance(obj, dict):
        for key in ("params", "result", "error"):
            if key in obj:
                body = obj[key]
                break
        else:
            body = {}
    return caused + clip(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


def _caused_by_app(event: Event) -> str:
    """``[app 1, row 54] `` before a request an MCP App's request caused (the host passed it to the server)."""
    row = event.data.get("app_request") if event.kind == Kind.MESSAGE else None
    return f"[app {event.data.get('app')}, row {row}] " if isinstance(row, int) else ""


def compact_seconds(seconds: float, *, whole: bool = False) -> str:
    """A duration in about three significant figures and the unit that suits it, at most 8 characters:
    ``0.25 ms``, ``12.5 ms``, ``250 ms``, ``2.50 s``, ``25.6 s``, ``4.3 min``, ``2.1 h``, ``3.0 d``. ``whole``:
    whole seconds below a minute (``14 s``: a time still running, redrawn once a second)."""
    sign = "-" if seconds < 0 else ""
    s = abs(seconds)
    ms = s * 1000
    if whole and s < 59.5:
        text = f"{s:.0f} s"
    elif whole and s < 60:
        text = "1.0 min"
    elif ms < 9.995:
        text = f"{ms:.2f} ms"
    elif ms < 99.95:
        text = f"{ms:.1f} ms"
    elif ms < 999.5:
        text = f"{ms:.0f} ms"
    elif s < 9.995:
        text = f"{s:.2f} s"
    elif s < 59.95:
        text = f"{s:.1f} s"
    elif s < 59.95 * 60:
        text = f"{s / 60:.1f} min"
    elif s < 23.95 * 3600:
        text = f"{s / 3600:.1f} h"
    else:
        text = f"{s / 86400:.1f} d"
    return sign + text


def _ms(seconds: Any) -> str:
    return f"{seconds * 1000:.1f} ms" if isinstance(seconds, (int, float)) else "?"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _words(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def target_words(target: Any) -> str:
    """What a capture header's ``target`` ran or reached, as words: a stdio target's command line, else its URL;
    ``""`` when it does not say. A capture may come from anyone: an ``argv`` that is no list of words (a number,
    null, one string) gives what it can, never an exception."""
    if not isinstance(target, dict):
        return ""
    if target.get("transport") == "stdio" or ("argv" in target and not target.get("url")):
        argv = target.get("argv")
        if isinstance(argv, list):
            return " ".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in argv)
        return argv if isinstance(argv, str) else ""
    url = target.get("url")
    return url if isinstance(url, str) else ""


def describe_http(data: Any) -> str:
    """One line for an HTTP exchange: request line, status, content type, timing, error or snippet."""
    number = data.get("exchange")
    timing = _dict(data.get("timing"))
    if data.get("phase") == "end":
        text = f"[exchange {number}] stream ended after {_ms(timing.get('total'))}"
        if data.get("keepalive_comments"):
            text += f", {data['keepalive_comments']} keep-alive comments"
        if data.get("error"):
            text += f": {data['error']}"
        return text
    text = f"[exchange {number}] {data.get('method')} {data.get('url')}"
    if data.get("purpose"):
        text += f" ({data['purpose']})"
    if "status" in data:
        content_type = str(_dict(data.get("response_headers")).get("content-type", ""))
        text += f" → {data['status']} {data.get('reason', '')}".rstrip()
        if content_type:
            text += f" {content_type.split(';')[0]}"
        session = _dict(data.get("response_headers")).get("mcp-session-id")
        if session:
            text += f" session {session}"
    parts = []
    if "connect" in timing:
        parts.append(f"connect {_ms(timing['connect'])}")
    if "first_byte" in timing:
        parts.append(f"first byte {_ms(timing['first_byte'])}")
    if "total" in timing:
        parts.append(f"total {_ms(timing['total'])}")
    if parts:
        text += " · " + ", ".join(parts)
    if data.get("error"):
        text += f": {data['error']}"
    elif data.get("snippet"):
        text += f" · body: {data['snippet']}"
    return text


def describe_lifecycle(data: Mapping[str, Any]) -> str:
    what = data.get("what", "?")
    if what == Lifecycle.SPAWNED:
        return f"spawned pid {data.get('pid')}: {_words(data.get('argv', []))} (in {data.get('cwd')})"
    if what == Lifecycle.EXITED:
        how = f"code {data['code']}" if "code" in data else f"signal {data.get('signal')}"
        after = f" after {data['after']}" if data.get("after") else ""
        reload = (" (it failed to start after a change)" if data.get("failed") else " (reload)") \
            if data.get("reload") else ""
        return f"exited with {how}{after}{reload}"
    if what == Lifecycle.RELOADING:
        changed = data.get("changed")
        names = ", ".join(str(path) for path in changed) if isinstance(changed, list) else ""
        names = names or "a watched path"
        return f"{names} changed: the server restarts behind the client"
    if what == Lifecycle.SIGNAL:
        return f"sent {data.get('signal')} to the process group"
    if what == Lifecycle.STDIN_CLOSED:
        return "closed the server's stdin"
    if what == Lifecycle.CONNECTING:
        return f"connecting to {data.get('url')} ({data.get('transport')})"
    if what == Lifecycle.DISCONNECTED:
        return f"disconnected: {data.get('reason')}"
    if what == Lifecycle.STREAM_LOST:
        return f"lost the answer to request {data.get('request_id')}: {data.get('reason')}"
    if what == Lifecycle.REQUEST_FAILED:
        return f"request {data.get('request_id')} will get no answer: {data.get('reason')}"
    if what == Lifecycle.CLOSED:
        return "closed the connection"
    if what == Lifecycle.GROUP_LEFTOVERS:
        return f"processes left in the group after exit: {data.get('pids')}; sent {data.get('signal')}"
    rest = {k: v for k, v in data.items() if k != "what"}
    return f"{what} {json.dumps(_jsonable(rest), ensure_ascii=False)}" if rest else str(what)


def format_event(event: Event, previous_t: float | None = None, extra: Sequence[Finding] = ()) -> str:
    """One timeline line and a line per finding; ``extra``: findings kept beside the event (the protocol
    judge's), shown after its own."""
    latency = event.data.get("latency")
    latency_text = f"{latency * 1000:8.1f} ms" if isinstance(latency, (int, float)) else " " * 11
    findings = [*event.findings, *extra]
    mark = "✗" if server_broke_framing(event) or any(f.severity == "error" for f in findings) else " "
    line = (f"{event.seq:6d} {event.t:9.3f}s {ARROWS.get(event.dir, ' ')}{mark} {label(event):<12} "
            f"{clip(method_and_id(event), 32):<32} {latency_text}  {summary(event)}")
    intercepted = intercept_sentence(event)
    if intercepted is not None:
        line += f"\n{'':>20}» {intercepted}"
    for finding in findings:
        line += f"\n{'':>20}{'!' if finding.severity == 'error' else '~'} {safe(finding.text)}"
    return line


def intercept_sentence(event: Event) -> str | None:
    """What an intercept rule or breakpoint did with this message (:func:`inspector.core.wire.intercepted.describe`,
    made safe to print: a capture's mark may come from anyone), or None for an ordinary event."""
    found = mark_of(event.data) if event.data else None
    return safe(describe(found)) if found is not None else None


def event_record(event: Event, extra: Sequence[Finding] = ()) -> dict[str, Any]:
    """The ``show --json`` view of an event: the capture fields plus what the inspector derived (``extra``:
    findings kept beside the event, such as the protocol judge's)."""
    out: dict[str, Any] = {"seq": event.seq, "t": round(event.t, 6), "kind": event.kind, "dir": event.dir,
                           "label": label(event)}
    if event.rpc is not None:
        out["rpc"] = {"kind": event.rpc.kind, "method": event.rpc.method or event.data.get("request_method"),
                      "id": event.rpc.id} if event.rpc.has_id or event.rpc.method else {"kind": event.rpc.kind}
    if event.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.STDERR) or (event.kind == Kind.APP and event.raw):
        out["raw"] = event.raw.decode("utf-8", errors="backslashreplace")
    if event.reason:
        out["reason"] = event.reason
    if cut_by_stop(event):
        out["cut_by_stop"] = event.data[CUT_BY_STOP]
    if event.findings or extra:
        out["findings"] = [f.to_json() for f in (*event.findings, *extra)]
    if "latency" in event.data:
        out["latency"] = event.data["latency"]
    if (intercepted := intercept_sentence(event)) is not None:
        out[MARK] = _jsonable(dict(event.data[MARK]))
        out["intercepted"] = intercepted
    if event.kind in (Kind.LIFECYCLE, Kind.NOTE, Kind.HTTP, Kind.SSE, Kind.APP):
        out["data"] = _jsonable(event.data)
    return out


def _jsonable(value: Any) -> Any:
    """``data`` without its bytes (a ``*_b64`` key in a capture is read back as bytes), at any depth."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if not isinstance(v, bytes)}
    if isinstance(value, list):
        return [_jsonable(v) for v in value if not isinstance(v, bytes)]
    return value


_PRINTABLE = {i: "." for i in range(256) if not 32 <= i < 127}


def hexdump(data: bytes, limit: int = 4096, total: int | None = None, offset_digits: int = 8) -> str:
    """The first ``limit`` bytes of ``data`` as offset, hex and printable characters, 16 a line, and how many
    more bytes there are (``total``: the size of the whole, when ``data`` is only its start). Shared by the
    detail pane's Hex tab, the explorer's blob preview and the exported reports."""
    lines = []
    for offset in range(0, min(len(data), limit), 16):
        chunk = data[offset : offset + 16]
        text = chunk.decode("latin-1").translate(_PRINTABLE)
        lines.append(f"{offset:0{offset_digits}x}  {chunk.hex(' '):<47}  {text}")
    total = len(data) if total is None else total
    if total > limit:
        lines.append(f"… {total - limit:,} more bytes")
    return "\n".join(lines)
