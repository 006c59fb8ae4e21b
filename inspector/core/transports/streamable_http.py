"""Streamable HTTP, as specified from 2025-03-26 to 2025-11-25, and its 2026-07-28 form.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http and
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http

Every client message is its own POST with ``Accept: application/json, text/event-stream``. A request is
answered by one JSON body or an SSE stream (which may carry notifications and, before 2026-07-28, server
requests ahead of the response); notifications and responses get 202. What differs by revision:

* legacy (2025-03-26 .. 2025-11-25): ``Mcp-Session-Id`` from the initialize response, echoed afterwards;
  ``MCP-Protocol-Version`` after initialize from 2025-06-18 on; a standalone GET stream for server-initiated
  messages (405 is allowed); DELETE on close; a 404 for a known session means it expired; a dropped stream
  is resumed by GET with ``Last-Event-ID`` after the server's ``retry``.
* modern (2026-07-28): no session, no GET stream; every POST carries ``MCP-Protocol-Version``,
  ``Mcp-Method``, ``Mcp-Name`` and the ``Mcp-Param-*`` headers of the tool's ``x-mcp-header`` annotations;
  closing a response stream cancels its request.

Everything is reported as events: each exchange (``http``), each message, each SSE event that carries no
message (``sse``: priming events, unknown event names), and problems as findings on them.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx

from inspector.core.redaction import redact_text
from inspector.core.tasks import Tasks
from inspector.core.transports import mcp_headers
from inspector.core.transports.base import (
    HttpStatusError,
    TransportClosed,
    TransportError,
)
from inspector.core.transports.http_common import (
    ACCEPT_BOTH,
    BodyTooLarge,
    HttpOptions,
    HttpTransportBase,
    failure,
    jsonrpc_error_in,
    page_text,
    snippet,
)
from inspector.core.transports.redirects import redirect_note, redirect_refusal
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import decode_document, decode_line
from inspector.core.wire.ids import IdKey, describe_id, id_key, same_id
from inspector.core.wire.sse import RawSSE

#: Revisions that require ``MCP-Protocol-Version`` on requests after initialize.
VERSION_HEADER_REVISIONS = frozenset({"2025-06-18", "2025-11-25"})
#: Reconnection attempts for a dropped stream before we say the server is gone.
MAX_RECONNECTS = 3
#: Wait before reconnecting when the server gave no ``retry``.
DEFAULT_RETRY_SECONDS = 1.0
#: Longest ``retry`` we honour, so a server cannot park us for hours.
MAX_RETRY_SECONDS = 10.0
#: Bound on the DELETE that ends a session: a frozen server must not hold the shutdown for a whole timeout.
CLOSE_TIMEOUT = 2.0
#: How many redirects (307/308) we follow for one POST.
MAX_REDIRECTS = 3


#: What :meth:`StreamableHttpTransport._emit_body` returns for a message that is no response with an id (a
#: response's id may be null, or anything else the server wrote, so None cannot say "no answer").
_NO_ANSWER: Any = object()


@dataclass
class StreamProgress:
    """What the SSE response of a waiting request has brought so far (to explain a timeout)."""

    opened: float
    bytes: int = 0
    events: int = 0
    last: float = 0.0

    def describe(self) -> str:
        now = time.monotonic()
        open_for = f"{now - self.opened:.1f} s"
        if not self.bytes:
            return f"its response stream has been open {open_for} without sending a byte"
        sent = f"{self.bytes} byte{'' if self.bytes == 1 else 's'}"
        if not self.events:
            return (f"its response stream is open and has sent {sent} in {open_for}, the last {now - self.last:.1f} s "
                    "ago, but no complete event: the server, or a proxy in between, sends too slowly")
        return (f"its response stream is open and has sent {self.events} events ({sent}) in {open_for}, "
                "but not the answer")


class StreamableHttpTransport(HttpTransportBase):
    name = "streamable-http"

    def __init__(self, options: HttpOptions) -> None:
        super().__init__(options)
        self.session_id: str | None = None
        self._expired = False  #: the server answered 404 for our session id: the session is over
        self.protocol_version: str | None = None  #: the negotiated revision (for the version header)
        self.era: str | None = None
        self._tasks = Tasks()
        self._streams: dict[IdKey, asyncio.Task[Any]] = {}  # request id -> task reading its SSE response
        self._progress: dict[IdKey, StreamProgress] = {}  # request id -> what its SSE response brought so far
        self._request_methods: dict[IdKey, str] = {}  # request id -> its method
        self._tool_plans: dict[str, mcp_headers.HeaderPlan] = {}
        self._invalid_tools: dict[str, str] = {}
        self._get_stream: asyncio.Task[Any] | None = None

    # -- lifecycle -------------------------------------------------------------------------------------

    async def start(self) -> None:
        self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.CONNECTING, "transport": self.name,
                                              "url": self.describe()["url"]}))

    def on_handshake(self, era: str, protocol_version: str | None) -> None:
        """The negotiated era and revision, known before notifications/initialized is sent (it already needs
        the MCP-Protocol-Version header from 2025-06-18 on)."""
        self.era = era
        self.protocol_version = protocol_version

    def on_ready(self) -> None:
        """After initialization, legacy sessions open the standalone GET stream, as clients do."""
        if self.era == "legacy" and self._get_stream is None and not self.closed:
            self._get_stream = self._tasks.spawn(self._standalone_stream(), "the standalone SSE stream")

    async def close(self) -> None:
        if self.closed:
            return
        self._tasks.cancel_all()
        await self._tasks.wait(CLOSE_TIMEOUT)
        if self.session_id is not None and self._gone is None and self.unresponsive:
            self.emit(Event(Kind.NOTE, data={"text": "not ending the session with DELETE: the server stopped "
                                                     "answering, and waiting for it again would only delay closing"}))
        elif self.session_id is not None and self._gone is None:
            request = self.client().build_request("DELETE", self.url, headers=self._headers(),
                                                  timeout=httpx.Timeout(CLOSE_TIMEOUT))
            try:
                # one bound for the whole exchange: httpx's timeout applies to each phase separately
                _, response, _, event = await wait_for(self.exchange(request, purpose="end session"),
                                                       CLOSE_TIMEOUT)
                if response.status_code == 405:
                    self.flag(event, "delete-405", "the server does not let clients end sessions (405): allowed",
                              "warning")
                self.emit(event)
            except (TimeoutError, TransportError):
                pass  # already an http event with the sentence
        await self._close_client()
        self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.CLOSED}))
        self._closed_event.set()

    # -- sending ---------------------------------------------------------------------------------------

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = self.options.base_headers()
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.era == "legacy" and self.protocol_version in VERSION_HEADER_REVISIONS:
            headers["MCP-Protocol-Version"] = self.protocol_version
        if extra:
            headers.update(extra)
        return headers

    def probe_headers(self) -> dict[str, str]:
        return self._headers()

    def _modern_headers(self, obj: dict[str, Any], raw: bool) -> dict[str, str]:
        params = p if isinstance(p := obj.get("params"), dict) else {}
        meta = m if isinstance(m := params.get("_meta"), dict) else {}
        version = meta.get("io.modelcontextprotocol/protocolVersion")
        if not isinstance(version, str):
            # "Every POST request to the MCP endpoint MUST include an MCP-Protocol-Version header" (2026-07-28
            # basic/transports/streamable-http): a notification's _meta has no protocolVersion, and a request
            # sent without one (to see what the server does) is still a POST of this session's revision.
            # Without the header a server may take the POST for 2025-03-26's and ask for a session.
            if self.era != "modern" or self.protocol_version is None:
                return {}
            version = self.protocol_version
        headers = {"MCP-Protocol-Version": version, **mcp_headers.standard_headers(obj)}
        if obj.get("method") == "tools/call" and isinstance(params.get("name"), str):
            tool = params["name"]
            if tool in self._invalid_tools and not raw:
                raise TransportError(f"refusing to call {tool}: its definition is invalid "
                                     f"({self._invalid_tools[tool]}); raw mode sends it anyway")
            plan = self._tool_plans.get(tool)
            if plan:
                try:
                    headers.update(mcp_headers.param_headers(plan, params.get("arguments")))
                except ValueError as exc:
                    if not raw:
                        raise TransportError(f"cannot call {tool}: {exc}") from None
        return headers

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        if self.closed:
            raise TransportClosed("the connection is closed")
        if self._gone is not None:
            raise TransportClosed(self._gone)
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError):
            obj = None
        if obj is None and not raw:
            raise TransportError("the message is not JSON; use raw mode to send it anyway")
        message = obj if isinstance(obj, dict) else {}
        kind = jsonrpc.classify(obj)[0].kind if isinstance(obj, (dict, list)) else jsonrpc.INVALID
        msg_id = message.get("id") if kind == jsonrpc.REQUEST else None
        extra = {"Accept": ACCEPT_BOTH, "Content-Type": "application/json"}
        if self.era != "legacy":
            extra.update(self._modern_headers(message, raw))
        if kind == jsonrpc.REQUEST:
            self._request_methods[id_key(msg_id)] = str(message.get("method"))
        number = self.next_exchange()
        outgoing = decode_line(data, Direction.C2S, eol=b"")
        outgoing.put(exchange=number)
        self.emit(outgoing)
        try:
            await self._post(data, extra, number, kind, message, msg_id)
        except TransportError as exc:
            self.request_failed(msg_id, str(exc))
            raise
        except asyncio.CancelledError:
            self.request_failed(msg_id, "the server did not answer in time, so the inspector stopped waiting")
            raise

    async def _post(self, data: bytes, extra: dict[str, str], number: int, kind: str, message: dict[str, Any],
                    msg_id: Any) -> None:
        url = self.url
        for _ in range(MAX_REDIRECTS + 1):
            request = self.client().build_request("POST", url, content=data, headers=self._headers(extra))
            started = time.monotonic()
            number, response, _, event = await self.exchange(request, read_body=False, number=number,
                                                             purpose=str(message.get("method") or kind))
            status = response.status_code
            if status in (307, 308) and "location" in response.headers:
                target = _redirect_target(response)
                await response.aclose()
                refusal = redirect_refusal(status, target)
                if refusal is not None:
                    self.flag(event, "redirect-refused", refusal)
                    self.emit(event)
                    raise TransportError(f"POST {self.shown(url)}: {refusal}")
                self.flag(event, *redirect_note(status, url, target, self.shown, self.options.url), "warning")
                self.emit(event)
                url = self.url = target
                number = self.next_exchange()
                continue
            await self._answer(response, event, started, number, kind, message, msg_id)
            return
        raise TransportError(f"POST {self.shown(self.url)}: more than {MAX_REDIRECTS} redirects")

    async def _answer(self, response: httpx.Response, event: Event, started: float, number: int, kind: str,
                      message: dict[str, Any], msg_id: Any) -> None:
        status = response.status_code
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if message.get("method") == "initialize" and 200 <= status < 300:
            self._learn_session(response, event)
        if status == 202:
            await response.aclose()
            if kind == jsonrpc.REQUEST:
                self.flag(event, "202-for-request", "202 Accepted for a request: its answer can only arrive on "
                                                   "another stream")
            self.emit(self._finished(event, started))
            return
        if 200 <= status < 300 and content_type == "text/event-stream":
            if kind != jsonrpc.REQUEST:
                self.flag(event, "stream-for-non-request", f"an SSE stream for a {kind}, where 202 was due")
            self.emit(event)
            _quiet_is_not_dead(response)
            task = self._tasks.spawn(self._read_stream(response, number, started, msg_id), "reading a response stream")
            if msg_id is not None:
                self._streams[id_key(msg_id)] = task
            return
        try:
            body = await self._read_body(response)
        except BodyTooLarge as exc:  # recorded as stdio records an over-long line: a framing error, head kept
            self.emit(self._finished(event, started, b""))
            event.put(body_bytes=exc.read)
            self._emit_oversize(exc, number)
            return
        finished = self._finished(event, started, body)
        if 200 <= status < 300:
            if content_type != "application/json":
                self.flag(finished, "content-type", f"answered with Content-Type {content_type or '(none)'}; "
                                                    "expected application/json or text/event-stream")
            if kind in (jsonrpc.NOTIFICATION, jsonrpc.RESPONSE) and body.strip():
                self.flag(finished, "200-with-body", f"200 with a body for a {kind}, where 202 Accepted was due")
            elif kind in (jsonrpc.NOTIFICATION, jsonrpc.RESPONSE):
                self.flag(finished, "200-not-202", f"200 for a {kind}, where 202 Accepted was due", "warning")
            self.emit(finished)
            if body.strip():
                answer = self._emit_body(body, number)
                if kind == jsonrpc.REQUEST and answer is not _NO_ANSWER and not same_id(answer, msg_id):
                    raise TransportError(self._not_the_answer(message, msg_id, answer, body))
            return
        self.emit(finished)
        self._fail(status, response, body, number, msg_id)

    def _fail(self, status: int, response: httpx.Response, body: bytes, number: int, msg_id: Any) -> None:
        """A status that is not an MCP answer: surface a JSON-RPC error body if it answers the request, else
        raise with one sentence."""
        error = jsonrpc_error_in(body)
        if error is not None:
            answer = self._emit_body(body, number)
            if answer is not _NO_ANSWER and msg_id is not None and same_id(answer, msg_id):
                return  # the waiting request gets its error response like any other
        reason = f"HTTP {status} {response.reason_phrase}".strip()
        where = f"POST {self.shown(self.url)}"
        if status == 404 and (self.session_id is not None or self._expired):
            if self.session_id is not None:
                expired, self.session_id = self.session_id, None
                self._expired = True
                self.gone(f"{where}: the server no longer knows session {expired} (404): it expired or the "
                          "server restarted; restart the session to initialize a new one")
            # every request that was already on its way with the old id meets the same 404: the same sentence
            raise TransportClosed(self._gone or "")
        if status == 401:
            challenge = response.headers.get("www-authenticate", "")
            detail = f": the server asks for {challenge}" if challenge else ""
            metadata = _resource_metadata(challenge)
            more = f"; its authorization metadata is at {metadata}" if metadata else ""
            raise HttpStatusError(f"{where}: {reason}{detail}{more} (pass a token with --bearer or -H, or log in "
                                  "with --oauth)", status)
        if status == 406:
            raise HttpStatusError(f"{where}: {reason}: the server refused our Accept header ({ACCEPT_BOTH})", status)
        if status == 403:
            origin = self.options.origin
            hint = f" (we sent Origin: {origin})" if origin else " (a server checking Origin rejects some clients)"
            raise HttpStatusError(f"{where}: {reason}: the server refused the request{hint}", status)
        if status in (405, 501):
            raise HttpStatusError(f"{where}: {reason}: this URL does not take POST, so it is not a Streamable HTTP "
                                  "endpoint", status)
        text = error.get("message") if error else None
        detail = f": {text}" if text else ""
        if not detail and body:
            piece = page_text(snippet(body, response.headers.get("content-type", "")), status,
                              response.reason_phrase)
            detail = f": {piece[:200]}" if piece else ""
        raise HttpStatusError(f"{where}: {reason}{detail}", status)

    def _learn_session(self, response: httpx.Response, event: Event) -> None:
        session_id = response.headers.get("mcp-session-id")
        if session_id is None:
            return
        if self.session_id is not None and session_id != self.session_id:
            self.flag(event, "session-id-changed", f"the session id changed from {self.session_id} to {session_id}")
        self.session_id = session_id

    async def _read_body(self, response: httpx.Response) -> bytes:
        try:
            return await self._read_limited(response)
        except httpx.HTTPError as exc:
            raise failure(exc, response.request.method, self.shown(response.request.url)) from None
        finally:
            await response.aclose()

    def _finished(self, event: Event, started: float, body: bytes | None = None) -> Event:
        timing = dict(event.data.get("timing", {}))
        timing["total"] = round(time.monotonic() - started, 6)
        event.put(timing=timing)
        if body is not None:
            event.put(body_bytes=len(body))
            content_type = event.data.get("response_headers", {}).get("content-type", "")
            status = event.data.get("status", 0)
            if body and status >= 300 and "json" not in content_type and jsonrpc_error_in(body) is None:
                    text = snippet(body, content_type)
                    event.put(snippet=redact_text(text) if self.options.redact else text)
        return event

    def _emit_oversize(self, exc: BodyTooLarge, number: int) -> None:
        """A message body over ``--max-message``: a framing error keeping its head (the session fails the
        request it answers with the sentence, as for a stdio line over the limit)."""
        self.emit(Event(Kind.FRAMING_ERROR, raw=exc.head, dir=Direction.S2C, reason=exc.reason,
                        data={"exchange": number, "oversize": {"total_bytes": exc.declared or exc.read, "tail": b"",
                                                               "read_bytes": exc.read}}))

    def _emit_body(self, body: bytes, number: int, sse: dict[str, Any] | None = None) -> Any:
        """Emit one received message; returns its id if it is a response with one (to match a waiting
        request), else ``_NO_ANSWER``."""
        event = decode_document(body, Direction.S2C)
        event.put(exchange=number, **({"sse": sse} if sse else {}))
        self._inspect_incoming(event)
        self.emit(event)
        if event.rpc is not None and event.rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and event.rpc.has_id:
            return event.rpc.id
        return _NO_ANSWER

    def _not_the_answer(self, message: dict[str, Any], msg_id: Any, answer: Any, body: bytes) -> str:
        """The sentence for a JSON answer to a request's POST that carries another id: it is the only answer
        this POST gets, and it cannot be paired, so the request fails now rather than at its timeout."""
        error = jsonrpc_error_in(body)
        said = f"; its error says: {error['message']}" if error and isinstance(error.get("message"), str) else ""
        return (f"POST {self.shown(self.url)}: the server answered {message.get('method')} with a response whose "
                f"id is {describe_id(answer)}, not the request's id {describe_id(msg_id)}{said}")

    def _inspect_incoming(self, event: Event) -> None:
        """Learn tool header annotations from tools/list results, flagging invalid tool definitions."""
        if event.rpc is None or event.rpc.kind != jsonrpc.RESPONSE:
            return
        if self._request_methods.get(id_key(event.rpc.id)) != "tools/list":
            return
        try:
            tools = event.json().get("result", {}).get("tools", [])
        except (ValueError, AttributeError):
            return
        for tool in tools if isinstance(tools, list) else []:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            try:
                plan = mcp_headers.header_plan(tool.get("inputSchema"))
            except ValueError as exc:
                self._invalid_tools[tool["name"]] = str(exc)
                event.add_finding("invalid-tool-headers", f"tool {tool['name']} is invalid: {exc}; calls to it "
                                                          "are refused (raw mode still sends them)")
                continue
            self._invalid_tools.pop(tool["name"], None)
            if plan:
                self._tool_plans[tool["name"]] = plan

    # -- streams ---------------------------------------------------------------------------------------

    async def _read_stream(self, response: httpx.Response, number: int, started: float, msg_id: Any) -> None:
        """Read one SSE response; resume it with GET + Last-Event-ID if it drops before the answer."""
        answered = False
        progress = StreamProgress(time.monotonic())
        if msg_id is not None:
            self._progress[id_key(msg_id)] = progress

        def chunk_came(chunk: bytes) -> None:
            progress.bytes += len(chunk)
            progress.last = time.monotonic()

        def event_came(raw: RawSSE, number: int) -> None:
            nonlocal answered
            progress.events += 1
            if msg_id is not None and same_id(self._sse_event(raw, number), msg_id):
                answered = True

        try:
            end = await self.read_sse(response, number, started, event_came, chunk_came)
        finally:
            if msg_id is not None:
                self._streams.pop(id_key(msg_id), None)
                self._progress.pop(id_key(msg_id), None)
        if answered or msg_id is None or self.closed:
            return
        if end.last_event_id and self.era != "modern":
            await self._resume(end.last_event_id, end.retry, msg_id)
        else:
            why = end.error or "the server ended it"
            self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.STREAM_LOST, "request_id": msg_id,
                                                  "reason": f"the response stream ended before the answer ({why})"}))

    def _sse_event(self, raw: RawSSE, number: int) -> Any:
        """Emit one SSE event; returns the id of the response it carries, else ``_NO_ANSWER``."""
        sse = raw.sse
        fields = raw.fields()
        if sse.event == "message" and sse.data.strip():
            return self._emit_body(sse.data.encode("utf-8"), number, fields)
        event = Event(Kind.SSE, raw=raw.raw, dir=Direction.S2C, eol=b"", data={"exchange": number, **fields})
        if not sse.data and sse.id:
            event.put(note="priming event: an id with empty data, so the client can resume from here")
        self.emit(event)
        return _NO_ANSWER

    async def _resume(self, last_event_id: str, retry: float | None, msg_id: Any) -> None:
        """GET with Last-Event-ID after ``retry``, until the answer arrives or attempts run out."""
        for attempt in range(1, MAX_RECONNECTS + 1):
            await asyncio.sleep(min(retry if retry is not None else DEFAULT_RETRY_SECONDS, MAX_RETRY_SECONDS))
            headers = self._headers({"Accept": "text/event-stream", "Last-Event-ID": last_event_id})
            request = self.client().build_request("GET", self.url, headers=headers, timeout=self.stream_timeout())
            started = time.monotonic()
            try:
                number, response, _, event = await self.exchange(request, read_body=False,
                                                                 purpose=f"resume after event {last_event_id}")
            except TransportError as exc:
                if attempt == MAX_RECONNECTS:
                    self.gone(f"the stream for request {msg_id} dropped and could not be resumed: {exc}")
                continue
            self.emit(event)
            if response.status_code != 200:
                await response.aclose()
                self.gone(f"the stream for request {msg_id} dropped and the server refused to resume it "
                          f"(HTTP {response.status_code})")
                return
            end = await self.read_sse(response, number, started,
                                      lambda raw, n: same_id(self._sse_event(raw, n), msg_id))
            if end.left:
                return  # the answer came
            retry = end.retry if end.retry is not None else retry
            last_event_id = end.last_event_id or last_event_id
        self.gone(f"the stream for request {msg_id} dropped {MAX_RECONNECTS} times; giving up")

    async def _standalone_stream(self) -> None:
        """The GET stream for server-initiated messages (legacy); reconnects with Last-Event-ID when it drops."""
        last_event_id = ""
        retry: float | None = None
        failures = 0

        def event_came(raw: RawSSE, number: int) -> None:
            nonlocal failures
            failures = 0  # the stream works: only drops in a row count
            self._sse_event(raw, number)

        while not self.closed and failures < MAX_RECONNECTS:
            extra = {"Accept": "text/event-stream"}
            if last_event_id:
                extra["Last-Event-ID"] = last_event_id
            request = self.client().build_request("GET", self.url, headers=self._headers(extra),
                                                  timeout=self.stream_timeout())
            started = time.monotonic()
            try:
                number, response, _, event = await self.exchange(request, read_body=False,
                                                                 purpose="standalone stream")
            except TransportError as exc:
                failures += 1
                if failures >= MAX_RECONNECTS:
                    self.gone(str(exc))
                    return
                await asyncio.sleep(min(retry or DEFAULT_RETRY_SECONDS, MAX_RETRY_SECONDS))
                continue
            if response.status_code == 405:
                await response.aclose()
                self.flag(event, "no-get-stream", "the server offers no standalone stream (405), which the spec "
                                                  "allows: server messages come only on POST responses", "warning")
                self.emit(self._finished(event, started))
                return
            if response.status_code != 200:
                body = await self._read_body(response)
                self.flag(event, "get-stream-refused", f"the standalone stream was refused with HTTP "
                                                       f"{response.status_code}", "warning")
                self.emit(self._finished(event, started, body))
                return
            self.emit(event)
            end = await self.read_sse(response, number, started, event_came)
            retry = end.retry if end.retry is not None else retry
            last_event_id = end.last_event_id or last_event_id
            failures += 1
            if not self.closed:
                await asyncio.sleep(min(retry or DEFAULT_RETRY_SECONDS, MAX_RETRY_SECONDS))
        if not self.closed and failures >= MAX_RECONNECTS:
            self.gone(f"the server's standalone stream dropped {MAX_RECONNECTS} times in a row")

    def waiting_detail(self, msg_id: Any) -> str | None:
        progress = self._progress.get(id_key(msg_id))
        return progress.describe() if progress is not None else self.auth_waiting()

    async def cancel_request(self, msg_id: Any) -> bool:
        """2026-07-28: closing a request's response stream cancels it. Legacy revisions use the
        notifications/cancelled message instead (returns False)."""
        task = self._streams.pop(id_key(msg_id), None)
        if task is not None and self.era == "modern":
            task.cancel()
            return True
        return False


def _redirect_target(response: httpx.Response) -> str:
    """Where a redirect's ``Location`` points: made absolute when it is http(s), else as the server wrote it."""
    location = response.headers["location"]
    try:
        joined = response.url.join(location)
    except (httpx.InvalidURL, ValueError):
        return location
    return str(joined) if joined.scheme in ("http", "https") else location  # file:///x would read file:/x


def _quiet_is_not_dead(response: httpx.Response) -> None:
    """No HTTP bound between the events of a request's response stream, as for the standalone GET stream: the
    session's clock bounds the wait for the answer, and it stops while the server waits for the user's answer
    to a question it asked on this very stream (a read bound would cut the stream under the user). httpx takes
    the read bound from the request's ``timeout`` extension when the body is first read, which is after this."""
    timeouts = response.request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        timeouts["read"] = None


def _resource_metadata(challenge: str) -> str | None:
    marker = 'resource_metadata="'
    if marker in challenge:
        return challenge.split(marker, 1)[1].split('"', 1)[0]
    return None
