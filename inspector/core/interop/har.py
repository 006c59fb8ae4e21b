"""HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) of an HTTP session, for a browser's network panel.

Contract: one entry per HTTP exchange of the capture (``http`` events, numbered by ``data.exchange``), in the
order the exchanges started: method, URL, request and response headers as the capture holds them (so secrets
are redacted exactly as in the capture), status, timings, and the bodies rebuilt from the messages the
exchange carried: the request body is the message sent, byte for byte; a JSON response body is the message
received; an SSE response body is its events in SSE form (``id:``, ``event:``, ``data:`` lines; comments and
keep-alives are counted in the capture, not kept, so they are absent). A body that is not MCP keeps the
readable ``snippet`` the capture saved. Exchanges of a stdio capture do not exist: :class:`ExportError`.

Custom fields start with ``_`` as HAR allows: ``_exchange``, ``_purpose``, ``_error``, ``_mcpMessages`` (the
``seq`` numbers of the messages the exchange carried, to find them in the capture), and for intercept rules and
breakpoints (:mod:`inspector.core.wire.intercepted`) ``_intercept`` on an entry (the marks of the messages it
carried: ``seq``, ``dir``, the mark's keys, and ``says``, its sentence) and ``_intercepted`` on the log (every
marked message, those that never crossed HTTP too: an original a rule changed, a held request, the inspector's
answer). Bodies are what crossed HTTP: the server's original answer, not what a rule changed it into.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeGuard
from urllib.parse import parse_qsl, urlsplit

from inspector import __version__
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.intercepted import describe, mark_of


class ExportError(Exception):
    """The capture cannot be exported to the format asked for; ``str()`` is a sentence."""


@dataclass
class _Exchange:
    number: int
    head: Event | None = None  #: the ``http`` event with the status line and headers
    end: Event | None = None  #: an SSE body's closing ``http`` event (``phase: end``)
    sent: list[Event] = field(default_factory=list)
    received: list[Event] = field(default_factory=list)  #: messages and SSE events, in order


def to_har(header: dict[str, Any], events: Iterable[Event]) -> dict[str, Any]:
    """The HAR object of a capture (``header`` and its events). Raises ExportError for a stdio capture or a
    capture without HTTP exchanges."""
    target = header.get("target") if isinstance(header.get("target"), dict) else {}
    assert isinstance(target, dict)
    if target.get("transport") == "stdio":
        raise ExportError("this is a capture of a stdio server, and HAR holds HTTP exchanges only; export it "
                          "--to markdown, html or jsonrpc instead")
    exchanges: dict[int, _Exchange] = {}
    intercepted: list[dict[str, Any]] = []
    for event in events:
        if event.kind == Kind.MESSAGE and (said := _intercept(event)) is not None:
            intercepted.append(said)
        number = event.data.get("exchange") if event.data else None
        if not isinstance(number, int):
            continue
        exchange = exchanges.setdefault(number, _Exchange(number))
        if event.kind == Kind.HTTP:
            if event.data.get("phase") == "end":
                exchange.end = event
            elif exchange.head is None:
                exchange.head = event
        elif event.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.SSE):
            (exchange.sent if event.dir == Direction.C2S else exchange.received).append(event)
    entries = [_entry(x) for x in sorted(exchanges.values(), key=_start) if x.head is not None]
    if not entries:
        raise ExportError("the capture holds no HTTP exchange (the connection was never made?), so there is "
                          "nothing for a HAR file")
    log: dict[str, Any] = {
        "version": "1.2",
        "creator": {"name": "mcp-inspector", "version": __version__},
        "pages": [],
        "entries": entries,
        "comment": f"exported from an mcp-inspector capture of {target.get('url', '?')}, recorded "
                   f"{header.get('created', '?')}; bodies are rebuilt from the recorded messages",
    }
    if intercepted:
        log["comment"] += (f"; intercept rules acted on {len(intercepted)} message"
                           f"{'' if len(intercepted) == 1 else 's'} (_intercepted)")
        log["_intercepted"] = intercepted
    return {"log": log}


def _intercept(event: Event) -> dict[str, Any] | None:
    """A marked message as HAR's custom field holds it: its ``seq`` and ``dir``, the mark, and its sentence."""
    found = mark_of(event.data) if event.data else None
    if found is None:
        return None
    return {"seq": event.seq, "dir": event.dir, **found, "says": describe(found)}


def _start(exchange: _Exchange) -> float:
    assert exchange.head is not None
    timing = exchange.head.data.get("timing") if isinstance(exchange.head.data.get("timing"), dict) else {}
    first_byte = timing.get("first_byte") if isinstance(timing, dict) else None
    return exchange.head.wall - (first_byte if isinstance(first_byte, (int, float)) else 0.0)


def _headers(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, dict):
        return []
    return [{"name": str(k), "value": str(v)} for k, v in value.items()]


def _header(headers: Any, name: str) -> str:
    if isinstance(headers, dict):
        for key, value in headers.items():
            if str(key).lower() == name:
                return str(value)
    return ""


def _ms(value: Any) -> float:
    return round(value * 1000, 3) if isinstance(value, (int, float)) else -1


def _entry(exchange: _Exchange) -> dict[str, Any]:
    assert exchange.head is not None
    data = exchange.head.data
    url = str(data.get("url", ""))
    timing = data.get("timing") if isinstance(data.get("timing"), dict) else {}
    assert isinstance(timing, dict)
    total = timing.get("total")
    if exchange.end is not None and isinstance(exchange.end.data.get("timing"), dict):
        total = exchange.end.data["timing"].get("total", total)
    first_byte = timing.get("first_byte")
    connect = timing.get("connect")
    wait = _ms(first_byte) if first_byte is not None else _ms(total)
    receive = round(max(0.0, _ms(total) - wait), 3) if total is not None and wait >= 0 else 0.0
    started = dt.datetime.fromtimestamp(_start(exchange), tz=dt.UTC)

    request: dict[str, Any] = {
        "method": str(data.get("method", "GET")),
        "url": url,
        "httpVersion": str(data.get("http_version", "HTTP/1.1")),
        "cookies": [],
        "headers": _headers(data.get("request_headers")),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query)],
        "headersSize": -1,
        "bodySize": 0,
    }
    if exchange.sent:
        body = b"\n".join(event.raw for event in exchange.sent)
        request["bodySize"] = len(body)
        request["postData"] = {"mimeType": _header(data.get("request_headers"), "content-type") or
                               "application/json", "text": body.decode("utf-8", errors="replace")}

    content_type = _header(data.get("response_headers"), "content-type")
    text = _response_body(exchange, content_type)
    status = data.get("status")
    response: dict[str, Any] = {
        "status": status if isinstance(status, int) else 0,
        "statusText": str(data.get("reason", "")) if status is not None else "",
        "httpVersion": str(data.get("http_version", "HTTP/1.1")),
        "cookies": [],
        "headers": _headers(data.get("response_headers")),
        "content": {"size": len(text.encode("utf-8")), "mimeType": content_type or "x-unknown", "text": text},
        "redirectURL": _header(data.get("response_headers"), "location"),
        "headersSize": -1,
        "bodySize": data["body_bytes"] if isinstance(data.get("body_bytes"), int) else -1,
    }
    entry: dict[str, Any] = {
        # microseconds (ISO 8601 allows any fraction): a request sent within the millisecond its predecessor's
        # answer began would otherwise come back before that answer when imported
        "startedDateTime": started.isoformat(timespec="microseconds").replace("+00:00", "Z"),
        "time": _ms(total) if total is not None else 0,
        "request": request,
        "response": response,
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": _ms(connect) if connect is not None else -1,
                    "send": 0, "wait": max(wait, 0), "receive": receive, "ssl": -1},
        "_exchange": exchange.number,
        "_mcpMessages": [event.seq for event in exchange.sent + exchange.received],
    }
    marks = [said for event in exchange.sent + exchange.received if (said := _intercept(event)) is not None]
    if marks:
        entry["_intercept"] = marks
    if data.get("purpose"):
        entry["_purpose"] = str(data["purpose"])
    error = data.get("error") or (exchange.end.data.get("error") if exchange.end is not None else None)
    if error:
        entry["_error"] = str(error)
    return entry


def _response_body(exchange: _Exchange, content_type: str) -> str:
    assert exchange.head is not None
    if "text/event-stream" in content_type:
        parts = []
        for event in exchange.received:
            if event.kind == Kind.SSE:
                parts.append(event.raw.decode("utf-8", errors="replace") + "\n\n")
                continue
            sse = event.data.get("sse") if isinstance(event.data.get("sse"), dict) else {}
            assert isinstance(sse, dict)
            lines = []
            if sse.get("id") is not None:
                lines.append(f"id: {sse['id']}")
            if sse.get("event"):
                lines.append(f"event: {sse['event']}")
            lines += [f"data: {line}" for line in event.raw.decode("utf-8", errors="replace").split("\n")]
            parts.append("\n".join(lines) + "\n\n")
        return "".join(parts)
    if exchange.received:
        return "\n".join(event.raw.decode("utf-8", errors="replace") for event in exchange.received)
    snippet = exchange.head.data.get("snippet")
    return str(snippet) if snippet else ""


# -- import -------------------------------------------------------------------------------------------------

def har_entries(har: Any) -> list[dict[str, Any]]:
    """The entries of a HAR object that look like MCP traffic (a POST with a JSON-RPC body, or a GET or
    DELETE to a URL that such a POST used), oldest first. Raises ExportError with a sentence when ``har`` is
    not HAR or has no MCP exchange."""
    entries = har.get("log", {}).get("entries") if isinstance(har, dict) and isinstance(har.get("log"), dict) \
        else None
    if not isinstance(entries, list):
        raise ExportError("this is not a HAR file: it has no log.entries list")
    entries = [e for e in entries if isinstance(e, dict) and isinstance(e.get("request"), dict)]
    mcp_urls = {str(e["request"].get("url")) for e in entries if _jsonrpc_body(e)}
    chosen = [e for e in entries if str(e["request"].get("url")) in mcp_urls]
    if not chosen:
        raise ExportError("the HAR file has no MCP exchange: no request carries a JSON-RPC message")
    return sorted(chosen, key=_started)  # by time, not text: HAR files write fractions of any length


def _jsonrpc_body(entry: dict[str, Any]) -> bool:
    post = entry["request"].get("postData")
    text = post.get("text") if isinstance(post, dict) else None
    return isinstance(text, str) and '"jsonrpc"' in text


def _started(entry: dict[str, Any]) -> float:
    text = str(entry.get("startedDateTime", ""))
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _duration(value: Any) -> TypeGuard[float]:
    """A HAR timing that says how long something took: a finite number of milliseconds, not -1 (HAR's "does
    not apply"), and not the NaN or Infinity that some tools write (and Python's json reads)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _dict_headers(value: Any) -> dict[str, str]:
    if not isinstance(value, list):
        return {}
    return {str(h.get("name")): str(h.get("value")) for h in value if isinstance(h, dict)}


def events_from_har(har: Any) -> tuple[dict[str, Any], list[tuple[list[Event], float]]]:
    """A HAR file's MCP exchanges as capture material: the capture's target and the batches of events with
    their wall times (per exchange: the request message when the entry started, then the ``http`` event and
    the response messages when its answer began, ``timings.wait`` later), in time order.
    Messages are decoded exactly as the HTTP transports decode them, so findings are the same; bodies are
    taken as the browser saved them (a HAR keeps text, so bytes that were not UTF-8 cannot come back)."""
    from inspector.core.wire.framing import decode_document
    from inspector.core.wire.sse import SSEDecoder

    entries = har_entries(har)
    url = str(entries[0]["request"].get("url", ""))
    batches: list[tuple[list[Event], float]] = []
    for number, entry in enumerate(entries, start=1):
        request, response = entry["request"], entry.get("response") if isinstance(entry.get("response"), dict) else {}
        assert isinstance(response, dict)
        batch: list[Event] = []
        started = _started(entry)
        post = request.get("postData")
        body = post.get("text") if isinstance(post, dict) else None
        if isinstance(body, str) and body.strip():
            sent = decode_document(body.encode("utf-8"), Direction.C2S)
            sent.put(exchange=number)
            batches.append(([sent], started))
        timings = entry.get("timings") if isinstance(entry.get("timings"), dict) else {}
        assert isinstance(timings, dict)
        wait = timings.get("wait")
        data: dict[str, Any] = {
            "exchange": number, "method": str(request.get("method", "POST")), "url": str(request.get("url", "")),
            "request_headers": _dict_headers(request.get("headers")),
            "status": response.get("status"), "reason": str(response.get("statusText", "")),
            "http_version": str(response.get("httpVersion", "")),
            "response_headers": _dict_headers(response.get("headers")),
            "timing": {k: round(v / 1000, 6) for k, v in (("first_byte", wait), ("total", entry.get("time")))
                       if _duration(v)},
            "purpose": "imported from HAR",
        }
        batch.append(Event(Kind.HTTP, data=data))
        content = response.get("content") if isinstance(response.get("content"), dict) else {}
        assert isinstance(content, dict)
        text = content.get("text")
        if isinstance(text, str) and content.get("encoding") == "base64":
            import base64
            try:
                text = base64.b64decode(text).decode("utf-8", errors="replace")
            except ValueError:
                text = None
        if isinstance(text, str) and text.strip():
            if "text/event-stream" in str(content.get("mimeType", "")):
                decoder = SSEDecoder()
                for raw in decoder.feed(text.encode("utf-8")) + decoder.close():
                    if raw.sse.event == "message" and raw.sse.data.strip():
                        event = decode_document(raw.sse.data.encode("utf-8"), Direction.S2C)
                        event.put(exchange=number, sse=raw.fields())
                    else:
                        event = Event(Kind.SSE, raw=raw.raw, dir=Direction.S2C, eol=b"",
                                      data={"exchange": number, **raw.fields()})
                    batch.append(event)
            elif "json" in str(content.get("mimeType", "")) or text.lstrip()[:1] in ("{", "["):
                received = decode_document(text.encode("utf-8"), Direction.S2C)
                received.put(exchange=number)
                batch.append(received)
        answered = started + (wait / 1000 if _duration(wait) else 0.0)
        batches.append((batch, answered))
    batches.sort(key=lambda pair: pair[1])  # stable: a request stays before the answer that began with it
    target = {"transport": "streamable-http", "url": url, "imported_from": "har"}
    return target, batches
