"""Spans made from a session's events, sans-io: :class:`SpanBuilder` is fed the events of a capture or a live
session in order (numbered and paired, as the session's pipeline leaves them) and gives back each span once it
is finished.

**A span per request**, either way (the client's requests are ``CLIENT`` spans, the server's own requests, such
as sampling or elicitation, ``SERVER`` spans), from the request's wall time to its answer's (the paired latency),
named ``METHOD TARGET`` as the OpenTelemetry semantic conventions for MCP name them
(https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): ``tools/call get_weather``, ``resources/read
file:///a``, ``prompts/get greet``, else the method. Attributes: ``mcp.method.name``, ``jsonrpc.request.id``,
``gen_ai.tool.name``, ``gen_ai.prompt.name``, ``mcp.resource.uri``, ``mcp.protocol.version``, ``mcp.server.name``,
``mcp.server.version``, and the inspector's ``mcp.inspector.seq`` (the request's seq in the capture) and
``mcp.inspector.latency_ms``. Its status is an error for a JSON-RPC error answer (``error.type`` its code,
``rpc.jsonrpc.error_code``, ``rpc.jsonrpc.error_message``), a tool result with ``isError: true`` (``error.type``
``tool_error``), and a request never answered (``error.type`` ``no_answer``, ended at the session's last event).

**Trace context.** A request whose ``params._meta`` carries a W3C ``traceparent``
(https://www.w3.org/TR/trace-context/#traceparent-header; MCP's ``_meta`` trace propagation) joins that trace:
its span has the traceparent's trace id and is a child of the span it names (``tracestate`` is kept). Every
other request is a child of the session's own span, the root of one trace per session, which covers the whole
session and carries what belongs to no request.

**Notifications are span events**, named by their method, on the span of the request they belong to: progress
by its ``progressToken``, ``notifications/cancelled`` by its ``requestId``; any other one on the newest request
still waiting for its answer (a log line during a call), else on the session span (at most
:data:`MAX_SESSION_EVENTS`, the rest counted as dropped).

**Intercepted messages** (:mod:`inspector.core.wire.intercepted`): a message its peer never got (an ``original``
a rule changed, a ``dropped`` one) makes no span: it is an ``intercepted`` event on the session span, with the
mark's sentence in ``mcp.inspector.intercept`` and its method. A request or answer a rule acted on and that went
on (changed, delayed, held and answered by the inspector) carries the sentence in
``mcp.inspector.intercept.request`` or ``mcp.inspector.intercept.answer`` on its span.

Ids are derived from ``session_key`` (a capture's creation time and target) and each request's seq, so
exporting the same capture twice gives the same ids.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.intercepted import delivered, describe, mark_of

#: OTLP span kinds (opentelemetry.proto.trace.v1.Span.SpanKind)
KIND_INTERNAL, KIND_SERVER, KIND_CLIENT = 1, 2, 3
#: OTLP status codes (opentelemetry.proto.trace.v1.Status.StatusCode)
STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2
#: Events kept on the session span; more are counted (``dropped_events_count``), not kept.
MAX_SESSION_EVENTS = 1000
#: Events kept on one request's span (a long call reporting progress every millisecond).
MAX_SPAN_EVENTS = 1000
#: How much of a notification's params an event keeps (as JSON text).
PARAMS_CHARS = 1024
_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


@dataclass
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class SpanRecord:
    """One span, in OTLP's terms (ids as bytes, times in nanoseconds since the epoch)."""

    trace_id: bytes
    span_id: bytes
    parent_span_id: bytes
    name: str
    kind: int
    start_ns: int
    end_ns: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    dropped_events: int = 0
    status_code: int = STATUS_UNSET
    status_message: str = ""
    trace_state: str = ""

    def add_event(self, event: SpanEvent, limit: int) -> None:
        if len(self.events) < limit:
            self.events.append(event)
        else:
            self.dropped_events += 1


def parse_traceparent(value: Any) -> tuple[bytes, bytes] | None:
    """(trace id, parent span id) of a W3C traceparent, or None when it is not one (or an all-zero id)."""
    if not isinstance(value, str):
        return None
    match = _TRACEPARENT.match(value.strip().lower())
    if match is None or match.group(1) == "ff":
        return None
    trace, parent = bytes.fromhex(match.group(2)), bytes.fromhex(match.group(3))
    if not any(trace) or not any(parent):
        return None
    return trace, parent


def _ns(wall: float) -> int:
    return int(round(wall * 1e9))


class SpanBuilder:
    """Events in, finished spans out (see the module). Call :meth:`feed` with each batch, in order, and
    :meth:`finish` once at the end."""

    def __init__(self, session_key: str) -> None:
        digest = hashlib.sha256(session_key.encode("utf-8")).digest()
        self.trace_id = digest[:16]
        self._key = digest
        self.session = SpanRecord(self.trace_id, self._span_id("session"), b"", "mcp session", KIND_INTERNAL, 0)
        self._open: dict[int, SpanRecord] = {}  #: request seq -> its span, until its answer
        self._tokens: dict[str, int] = {}  #: progress token (JSON text) -> request seq
        self._ids: dict[tuple[str, str], int] = {}  #: (direction, id as JSON) -> request seq, for cancels
        self._keys_of: dict[int, tuple[str | None, tuple[str, str]]] = {}  #: forgotten with the answer
        self.server_name: str | None = None
        self.server_version: str | None = None
        self.protocol_version: str | None = None
        self._last_ns = 0

    def _span_id(self, what: str) -> bytes:
        span_id = hashlib.sha256(self._key + what.encode()).digest()[:8]
        return span_id if any(span_id) else b"\x00" * 7 + b"\x01"

    # -- feeding ------------------------------------------------------------------------------------------

    def feed(self, events: list[Event]) -> list[SpanRecord]:
        """Take a batch of events; returns the spans it finished."""
        done: list[SpanRecord] = []
        for event in events:
            if event.wall:
                now = _ns(event.wall)
                self._last_ns = max(self._last_ns, now)
                if not self.session.start_ns:
                    self.session.start_ns = now
            if event.kind == Kind.MESSAGE and event.rpc is not None:
                self._message(event, done)
            elif event.kind == Kind.LIFECYCLE and event.data.get("what") == Lifecycle.EXITED:
                self.session.add_event(SpanEvent("server exited", _ns(event.wall), {
                    k: v for k, v in event.data.items() if k in ("code", "signal")}), MAX_SESSION_EVENTS)
        return done

    def finish(self) -> list[SpanRecord]:
        """End what is still open (never answered) and the session span; returns them."""
        done = []
        for span in self._open.values():
            span.end_ns = max(self._last_ns, span.start_ns)
            span.status_code, span.status_message = STATUS_ERROR, "no answer came"
            span.attributes["error.type"] = "no_answer"
            self._server_attributes(span)
            done.append(span)
        self._open.clear()
        session = self.session
        session.end_ns = max(self._last_ns, session.start_ns)
        if self.server_name:
            session.name = f"mcp session {self.server_name}"
        self._server_attributes(session)
        done.append(session)
        return done

    def _message(self, event: Event, done: list[SpanRecord]) -> None:
        rpc = event.rpc
        assert rpc is not None
        found = mark_of(event.data)
        if found is not None and not delivered(event.data):  # never reached its peer: no span of its own
            self.session.add_event(SpanEvent("intercepted", _ns(event.wall), {
                "mcp.inspector.intercept": describe(found), "mcp.method.name": rpc.method or "",
                "mcp.inspector.seq": event.seq}), MAX_SESSION_EVENTS)
            return
        if rpc.kind == jsonrpc.REQUEST:
            self._request(event)
            if found is not None:
                self._open[event.seq].attributes["mcp.inspector.intercept.request"] = describe(found)
        elif rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
            reply_to = event.data.get("reply_to")
            span = self._open.pop(reply_to, None) if isinstance(reply_to, int) else None
            if span is not None and isinstance(reply_to, int):
                token, key = self._keys_of.pop(reply_to, (None, ("", "")))
                self._tokens.pop(token or "", None)
                self._ids.pop(key, None)
                self._answer(span, event)
                if found is not None:
                    span.attributes["mcp.inspector.intercept.answer"] = describe(found)
                done.append(span)
        elif rpc.kind == jsonrpc.NOTIFICATION:
            self._notification(event)

    def _request(self, event: Event) -> None:
        rpc = event.rpc
        assert rpc is not None and rpc.method is not None
        obj = _json(event)
        params = _object(obj.get("params") if isinstance(obj, dict) else None)
        meta = _object(params.get("_meta"))
        target, attributes = _target(rpc.method, params)
        attributes.update({"mcp.method.name": rpc.method, "jsonrpc.request.id": _id_text(rpc.id),
                           "mcp.inspector.seq": event.seq})
        joined = parse_traceparent(meta.get("traceparent"))
        trace_id, parent = joined if joined is not None else (self.trace_id, self.session.span_id)
        span = SpanRecord(trace_id, self._span_id(f"request {event.seq}"), parent,
                          f"{rpc.method} {target}" if target else rpc.method,
                          KIND_CLIENT if event.dir == Direction.C2S else KIND_SERVER, _ns(event.wall),
                          attributes=attributes)
        if joined is not None and isinstance(meta.get("tracestate"), str):
            span.trace_state = meta["tracestate"]
        self._open[event.seq] = span
        token = json.dumps(meta["progressToken"]) if meta.get("progressToken") is not None else None
        if token is not None:
            self._tokens[token] = event.seq
        key = (event.dir or "", json.dumps(rpc.id))
        self._ids[key] = event.seq
        self._keys_of[event.seq] = (token, key)

    def _answer(self, span: SpanRecord, event: Event) -> None:
        latency = event.data.get("latency")
        if isinstance(latency, (int, float)) and latency >= 0:
            span.end_ns = span.start_ns + int(round(latency * 1e9))
            span.attributes["mcp.inspector.latency_ms"] = round(latency * 1000, 3)
        else:
            span.end_ns = max(_ns(event.wall), span.start_ns)
        obj = _json(event)
        if isinstance(obj, dict) and isinstance(obj.get("error"), dict):
            error = obj["error"]
            code, message = error.get("code"), error.get("message")
            span.status_code, span.status_message = STATUS_ERROR, str(message or "(no message)")
            span.attributes.update({"error.type": str(code), "rpc.jsonrpc.error_code": code,
                                    "rpc.jsonrpc.error_message": str(message or "")})
        elif isinstance(obj, dict):
            result = obj.get("result")
            if isinstance(result, dict):
                if span.attributes.get("mcp.method.name") in ("initialize", "server/discover"):
                    self._learn_server(result)
                if result.get("isError") is True:
                    span.status_code, span.status_message = STATUS_ERROR, _first_text(result) or "the tool failed"
                    span.attributes["error.type"] = "tool_error"
        self._server_attributes(span)

    def _notification(self, event: Event) -> None:
        rpc = event.rpc
        assert rpc is not None and rpc.method is not None
        obj = _json(event)
        params = _object(obj.get("params") if isinstance(obj, dict) else None)
        attributes: dict[str, Any] = {"mcp.method.name": rpc.method,
                                      "mcp.notification.direction": "to server" if event.dir == Direction.C2S
                                      else "from server", "mcp.inspector.seq": event.seq}
        text = json.dumps(params, ensure_ascii=False)
        if params:
            attributes["mcp.notification.params"] = text if len(text) <= PARAMS_CHARS else text[:PARAMS_CHARS] + "…"
        span = self._owner(event, params)
        item = SpanEvent(rpc.method, _ns(event.wall), attributes)
        if span is None:
            self.session.add_event(item, MAX_SESSION_EVENTS)
        else:
            span.add_event(item, MAX_SPAN_EVENTS)

    def _owner(self, event: Event, params: dict[str, Any]) -> SpanRecord | None:
        """The open request span a notification belongs to (see the module), or None."""
        token = params.get("progressToken")
        if token is not None:
            seq = self._tokens.get(json.dumps(token))
            return self._open.get(seq) if seq is not None else None
        if event.method == "notifications/cancelled" and "requestId" in params:
            # a cancel names a request sent the other way
            asked = Direction.S2C if event.dir == Direction.C2S else Direction.C2S
            seq = self._ids.get((asked, json.dumps(params["requestId"])))
            return self._open.get(seq) if seq is not None else None
        return next(reversed(self._open.values()), None)

    def _learn_server(self, result: dict[str, Any]) -> None:
        meta = _object(result.get("_meta"))
        info = result.get("serverInfo") or meta.get("io.modelcontextprotocol/serverInfo")
        if isinstance(info, dict):
            self.server_name = info.get("name") if isinstance(info.get("name"), str) else self.server_name
            self.server_version = info.get("version") if isinstance(info.get("version"), str) else None
        version = result.get("protocolVersion")
        supported = result.get("supportedVersions")
        if not isinstance(version, str) and isinstance(supported, list) and supported:
            version = supported[-1]
        self.protocol_version = version if isinstance(version, str) else self.protocol_version

    def _server_attributes(self, span: SpanRecord) -> None:
        for key, value in (("mcp.server.name", self.server_name), ("mcp.server.version", self.server_version),
                           ("mcp.protocol.version", self.protocol_version)):
            if value:
                span.attributes.setdefault(key, value)


def _target(method: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The span name's target and the attributes that name it."""
    name, uri = params.get("name"), params.get("uri")
    if method == "tools/call" and isinstance(name, str):
        return name, {"gen_ai.tool.name": name}
    if method == "prompts/get" and isinstance(name, str):
        return name, {"gen_ai.prompt.name": name}
    if isinstance(uri, str) and method.startswith("resources/"):
        return uri, {"mcp.resource.uri": uri}
    return "", {}


def _id_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _first_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
            return str(item["text"])[:200]
    return ""


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a message may come from anyone)."""
    return value if isinstance(value, dict) else {}


def _json(event: Event) -> Any:
    try:
        return event.json()
    except ValueError:
        return None
