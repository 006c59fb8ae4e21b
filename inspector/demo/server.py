"""The dual-era demo MCP server: stdio, standard library only.

Run it with ``python -m inspector.demo``. It reads newline-delimited JSON-RPC
from stdin, writes one compact JSON object per line to stdout and logs to
stderr (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio).

Eras (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning):

- *Legacy* (2024-11-05 to 2025-11-25): the client sends ``initialize``; the
  negotiated revision, client capabilities and log level are kept for the
  life of the process, which is the legacy session on stdio.
- *Modern* (2026-07-28): every request carries
  ``_meta["io.modelcontextprotocol/protocolVersion"]`` and is served on its
  own, with no state from earlier requests. Results carry
  ``resultType: "complete"`` and the server's identity in ``_meta``.

A request is modern exactly when its ``_meta`` names a protocol version;
anything else is legacy, and ``initialize`` is always legacy.

Threads: the main thread reads stdin and handles most requests inline, so
answers come back in order. Tools that wait (``slow_count``, ``ask_llm``) run
on worker threads so that the main thread keeps reading: it must see
``notifications/cancelled`` and the client's answer to ``sampling/createMessage``
while they run. All stdout writes go through one locked writer.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO, NoReturn

from inspector.demo import content, protocol, tools
from inspector.demo.protocol import RpcError
from inspector.demo.tools import LEGACY, MODERN, SamplingOutcome
from inspector.demo.transport import LineError, StdoutWriter, decode_line

log = logging.getLogger("inspector.demo")

CAPABILITIES: dict[str, Any] = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": False, "listChanged": False},
    "prompts": {"listChanged": False},
    "logging": {},
    # completion/complete is implemented, and from 2025-03-26 on a server that
    # answers it must say so.
    "completions": {},
}

#: Legacy default for notifications/message until the client calls logging/setLevel.
DEFAULT_LEGACY_LOG_LEVEL = "info"

#: How long ask_llm waits for the client's sampling answer.
SAMPLING_TIMEOUT_S = 120.0

#: At stdin EOF, how long in-flight background calls may still finish and be
#: answered (a client piping a script and closing stdin still gets answers),
#: and then how long cancelled ones get to wind down. Kept well below the 2 s
#: the SDKs wait before SIGTERM.
EOF_GRACE_S = 1.0
EOF_CANCEL_WAIT_S = 0.5

#: Sent in the result of cacheable modern requests
#: (https://modelcontextprotocol.io/specification/2026-07-28/schema#cacheableresult).
#: Nothing here is user-specific, hence "public"; ttlMs 0 because the demo
#: claims tools/listChanged and so promises nothing about freshness.
CACHE_FIELDS: dict[str, Any] = {"cacheScope": "public", "ttlMs": 0}
CACHEABLE_METHODS = frozenset(
    {"server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"}
)

_DEFERRED = object()  # a handler's "the answer will be sent later by a worker"


@dataclass
class Request:
    """One client request, classified by era."""

    id: Any
    method: str
    params: dict[str, Any]
    era: str
    meta: dict[str, Any]


@dataclass
class LegacySession:
    """What ``initialize`` established; on stdio the session is the process.

    https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
    """

    protocol_version: str | None = None
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    client_info: Any = None
    initialized: bool = False
    log_level: str = DEFAULT_LEGACY_LOG_LEVEL


@dataclass
class _Pending:
    """A server-to-client request waiting for the client's response."""

    owner: Any  # id of the client request on whose behalf we asked
    event: threading.Event = field(default_factory=threading.Event)
    response: dict[str, Any] | None = None
    closed: bool = False  # stdin reached EOF before an answer came


class _CallContext:
    """The :class:`inspector.demo.tools.ToolContext` for one ``tools/call``."""

    def __init__(self, server: DemoServer, request: Request, cancelled: threading.Event) -> None:
        self._server = server
        self._request = request
        self._cancelled = cancelled
        self.era = request.era
        self.progress_token = request.meta.get(protocol.META_PROGRESS_TOKEN)

    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()

    def wait_cancelled(self, seconds: float) -> bool:
        return self._cancelled.wait(seconds)

    def progress(self, progress: float, total: float | None, message: str) -> None:
        """Progress only for a given token, and never after cancellation.

        https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress
        """
        if self.progress_token is None or self.is_cancelled():
            return
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        params["message"] = message
        self._server.writer.send(protocol.notification("notifications/progress", params))

    def log(self, level: str, data: Any) -> None:
        """Log to the client if it asked for ``level`` or lower.

        Legacy: the session level from ``logging/setLevel`` (default info).
        Modern: only when this request's ``_meta`` sets a log level
        (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
        """
        if self.era == MODERN:
            threshold = self._request.meta.get(protocol.META_LOG_LEVEL)
        else:
            threshold = self._server.session.log_level
        if self.is_cancelled() or not protocol.log_level_allows(threshold, level):
            return
        params = {"level": level, "logger": protocol.SERVER_NAME, "data": data}
        self._server.writer.send(protocol.notification("notifications/message", params))

    def send(self, message: dict[str, Any]) -> None:
        if not self.is_cancelled():
            self._server.writer.send(message)

    def write_stdout_raw(self, data: bytes) -> None:
        self._server.writer.write_raw(data)

    def write_stderr_raw(self, data: bytes) -> None:
        self._server.write_stderr(data)

    def client_can_sample(self) -> bool:
        return self.era == LEGACY and isinstance(self._server.session.client_capabilities.get("sampling"), dict)

    def sample(self, params: dict[str, Any]) -> SamplingOutcome:
        return self._server.request_sampling(self._request.id, self._cancelled, params)

    def exit_process(self, code: int, message: str) -> NoReturn:
        self._server.exit_process(code, message)


class DemoServer:
    """Reads messages, dispatches them, and writes answers.

    The public surface is :meth:`serve` (loop until EOF) and
    :meth:`handle_line` (one raw stdin line), which keeps it testable without
    a subprocess.
    """

    def __init__(
        self,
        writer: StdoutWriter,
        stderr: BinaryIO,
        *,
        sampling_timeout: float = SAMPLING_TIMEOUT_S,
        exit_hook: Callable[[int], NoReturn] = os._exit,
    ) -> None:
        self.writer = writer
        self._stderr = stderr
        self._stderr_lock = threading.Lock()
        self._sampling_timeout = sampling_timeout
        self._exit_hook = exit_hook
        self.session = LegacySession()
        self._lock = threading.Lock()  # guards the four fields below
        self._active: dict[Any, threading.Event] = {}  # background request id -> cancelled
        self._pending: dict[str, _Pending] = {}  # our request id -> waiter
        self._workers: set[threading.Thread] = set()
        self._sampling_seq = 0
        self._stdin_closed = False
        #: open subscriptions/listen requests (2026-07-28), kept until the client cancels them
        self._subscriptions: set[Any] = set()
        self._legacy_methods: dict[str, Callable[[Request], Any]] = {
            "initialize": self._initialize,
            "ping": self._ping,
            "logging/setLevel": self._set_level,
            **self._shared_methods(),
        }
        self._modern_methods: dict[str, Callable[[Request], Any]] = {
            "server/discover": self._discover,
            "subscriptions/listen": self._listen,
            **self._shared_methods(),
        }

    def _shared_methods(self) -> dict[str, Callable[[Request], Any]]:
        return {
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "resources/list": self._resources_list,
            "resources/read": self._resources_read,
            "resources/templates/list": self._resource_templates_list,
            "prompts/list": self._prompts_list,
            "prompts/get": self._prompts_get,
            "completion/complete": self._complete,
        }

    # ------------------------------------------------------------ main loop

    def serve(self, stdin: BinaryIO) -> int:
        """Handle stdin line by line until EOF, then wind down; return 0.

        EOF on stdin is the client's shutdown signal
        (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#shutdown).
        """
        while True:
            raw = stdin.readline()
            if not raw:
                break
            self.handle_line(raw)
        self._wind_down()
        return 0

    def handle_line(self, raw: bytes) -> None:
        """Decode one stdin line and dispatch it; bad input gets -32700."""
        try:
            message = decode_line(raw)
        except LineError as exc:
            log.warning("%s", exc.detail)
            self.writer.send(protocol.error_response(None, RpcError(protocol.PARSE_ERROR, exc.message, exc.detail)))
            return
        if message is None:
            log.debug("ignoring a blank line")
            return
        self.dispatch(message)

    def dispatch(self, message: Any) -> None:
        """Route a decoded JSON value: request, notification or response."""
        if not isinstance(message, dict):
            # Batches (arrays) existed only in 2025-03-26; this demo never
            # accepted them, so they are invalid requests like any non-object.
            kind = "a batch (JSON array)" if isinstance(message, list) else type(message).__name__
            self._send_error(None, RpcError(protocol.INVALID_REQUEST, "Invalid Request",
                                            f"expected a JSON object, got {kind}"))
            return
        has_id = "id" in message
        request_id = message.get("id")
        if message.get("jsonrpc") != protocol.JSONRPC_VERSION:
            self._send_error(
                request_id if protocol.is_valid_id(request_id) else None,
                RpcError(protocol.INVALID_REQUEST, "Invalid Request", 'missing or wrong "jsonrpc": must be "2.0"'),
            )
            return
        method = message.get("method")
        if method is None:
            if has_id and ("result" in message or "error" in message):
                self._handle_response(message)
            else:
                self._send_error(None, RpcError(protocol.INVALID_REQUEST, "Invalid Request",
                                                "no method, result or error"))
            return
        if not isinstance(method, str):
            self._send_error(request_id if protocol.is_valid_id(request_id) else None,
                             RpcError(protocol.INVALID_REQUEST, "Invalid Request", '"method" must be a string'))
            return
        if not has_id:
            self._handle_notification(method, message.get("params"))
            return
        if not protocol.is_valid_id(request_id):
            self._send_error(None, RpcError(protocol.INVALID_REQUEST, "Invalid Request",
                                            '"id" must be a string or an integer'))
            return
        self._handle_request(request_id, method, message.get("params"))

    # ------------------------------------------------------------ requests

    def _handle_request(self, request_id: Any, method: str, params: Any) -> None:
        try:
            request = self._classify(request_id, method, params)
            handler = self._handler_for(request)
            result = handler(request)
        except RpcError as exc:
            self._send_error(request_id, exc)
            return
        except Exception as exc:  # a bug in the demo must not kill the server
            log.exception("error while handling %s", method)
            self._send_error(request_id, RpcError(protocol.INTERNAL_ERROR, "Internal error", str(exc)))
            return
        if result is not _DEFERRED:
            self._reply(request, result)

    def _classify(self, request_id: Any, method: str, params: Any) -> Request:
        """Decide the era of a request and validate its modern ``_meta``.

        Modern rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta):
        an unsupported version is -32022 with the supported list; a request
        missing ``clientCapabilities`` is malformed (-32602).
        """
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise RpcError(protocol.INVALID_PARAMS, "Invalid params", '"params" must be an object')
        meta = params.get("_meta")
        if not isinstance(meta, dict):
            meta = {}
        if method == "initialize" or protocol.META_PROTOCOL_VERSION not in meta:
            if method == "server/discover":
                raise RpcError(
                    protocol.INVALID_PARAMS,
                    f"server/discover is a 2026-07-28 request: _meta must carry {protocol.META_PROTOCOL_VERSION} "
                    f"and {protocol.META_CLIENT_CAPABILITIES}",
                    {"missing": [protocol.META_PROTOCOL_VERSION, protocol.META_CLIENT_CAPABILITIES]},
                )
            return Request(request_id, method, params, LEGACY, meta)
        version = meta[protocol.META_PROTOCOL_VERSION]
        if version != protocol.MODERN_VERSION:
            raise protocol.unsupported_version_error(version)
        if not isinstance(meta.get(protocol.META_CLIENT_CAPABILITIES), dict):
            raise RpcError(
                protocol.INVALID_PARAMS,
                f"_meta must carry {protocol.META_CLIENT_CAPABILITIES} (an object) on every 2026-07-28 request",
                {"missing": [protocol.META_CLIENT_CAPABILITIES]},
            )
        level = meta.get(protocol.META_LOG_LEVEL)
        if level is not None and level not in protocol.LOG_LEVELS:
            raise RpcError(protocol.INVALID_PARAMS, f"unknown log level {level!r}",
                           {"levels": list(protocol.LOG_LEVELS)})
        return Request(request_id, method, params, MODERN, meta)

    def _handler_for(self, request: Request) -> Callable[[Request], Any]:
        table = self._modern_methods if request.era == MODERN else self._legacy_methods
        handler = table.get(request.method)
        if handler is not None:
            if request.era == LEGACY and request.method != "initialize" and self.session.protocol_version is None:
                # Lenient on purpose: the inspector flags this client-side.
                log.warning("%s before initialize; serving it anyway", request.method)
            return handler
        hint = {
            (MODERN, "ping"): "ping was removed in 2026-07-28",
            (MODERN, "logging/setLevel"): f"2026-07-28 replaced logging/setLevel with _meta {protocol.META_LOG_LEVEL}",
        }.get((request.era, request.method), f"no such method in the {request.era} era")
        raise RpcError(protocol.METHOD_NOT_FOUND, f"Method not found: {request.method}", hint)

    def _reply(self, request: Request, result: dict[str, Any]) -> None:
        """Send a result, adding the modern-era fields when due."""
        if request.era == MODERN:
            result = dict(result)
            if request.method in CACHEABLE_METHODS:
                for key, value in CACHE_FIELDS.items():
                    result.setdefault(key, value)
            result.setdefault("resultType", "complete")
            meta = dict(result.get("_meta") or {})
            meta.setdefault(protocol.META_SERVER_INFO, protocol.server_info())
            result["_meta"] = meta
        self.writer.send(protocol.result_response(request.id, result))

    def _send_error(self, request_id: Any, error: RpcError) -> None:
        self.writer.send(protocol.error_response(request_id, error))

    # ------------------------------------------------------------ lifecycle

    def _initialize(self, request: Request) -> dict[str, Any]:
        """Legacy handshake: echo a known revision, else offer the latest.

        https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
        """
        params = request.params
        requested = params.get("protocolVersion")
        negotiated = requested if requested in protocol.LEGACY_VERSIONS else protocol.LATEST_LEGACY_VERSION
        capabilities = params.get("capabilities")
        self.session = LegacySession(
            protocol_version=negotiated,
            client_capabilities=capabilities if isinstance(capabilities, dict) else {},
            client_info=params.get("clientInfo"),
        )
        log.info("initialize: client %s asked for %r, answering %s", params.get("clientInfo"), requested, negotiated)
        return {
            "protocolVersion": negotiated,
            "capabilities": CAPABILITIES,
            "serverInfo": protocol.server_info(),
            "instructions": content.INSTRUCTIONS,
        }

    def _discover(self, request: Request) -> dict[str, Any]:
        """``server/discover`` (https://modelcontextprotocol.io/specification/2026-07-28/server/discover)."""
        return {
            "supportedVersions": list(protocol.SUPPORTED_VERSIONS),
            "capabilities": CAPABILITIES,
            "instructions": content.INSTRUCTIONS,
        }

    def _listen(self, request: Request) -> Any:
        """``subscriptions/listen``: acknowledge first, with the subset of the filter this server can honour
        (tools list changes, the one list change it declares), then keep the request open until the client
        cancels it (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)."""
        asked = request.params.get("notifications")
        asked = asked if isinstance(asked, dict) else {}
        honoured = {"toolsListChanged": True} if asked.get("toolsListChanged") is True else {}
        with self._lock:
            self._subscriptions.add(request.id)
        self.writer.send(protocol.notification("notifications/subscriptions/acknowledged", {
            "notifications": honoured, "_meta": {protocol.META_SUBSCRIPTION_ID: request.id}}))
        return _DEFERRED

    def _ping(self, request: Request) -> dict[str, Any]:
        """https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping"""
        return {}

    def _set_level(self, request: Request) -> dict[str, Any]:
        """Legacy ``logging/setLevel``: the minimum level for later log notifications."""
        level = request.params.get("level")
        if level not in protocol.LOG_LEVELS:
            raise RpcError(protocol.INVALID_PARAMS, f"unknown log level {level!r}",
                           {"levels": list(protocol.LOG_LEVELS)})
        self.session.log_level = level
        return {}

    # ------------------------------------------------------------ features

    def _tools_list(self, request: Request) -> dict[str, Any]:
        return {"tools": [tool.describe() for tool in tools.TOOLS]}

    def _tools_call(self, request: Request) -> Any:
        """Run a tool inline, or on a worker thread if it waits.

        An unknown tool is a protocol error (-32602); bad arguments are a tool
        error result, per https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
        """
        name = request.params.get("name")
        tool = tools.TOOLS_BY_NAME.get(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(protocol.INVALID_PARAMS, f"Unknown tool: {name!r}", {"name": name})
        try:
            arguments = tools.apply_schema(tool.input_schema, request.params.get("arguments"))
        except tools.ToolInputError as exc:
            return tools.text_result(f"invalid arguments for {tool.name}: {exc}", is_error=True)
        cancelled = threading.Event()
        if not tool.background:
            return tool.run(_CallContext(self, request, cancelled), arguments)
        worker = threading.Thread(
            target=self._run_worker,
            args=(request, tool, arguments, cancelled),
            name=f"tool-{tool.name}-{request.id}",
            daemon=True,  # never keep the process alive after stdin EOF
        )
        with self._lock:
            self._active[request.id] = cancelled
            self._workers.add(worker)
        worker.start()
        return _DEFERRED

    def _run_worker(self, request: Request, tool: tools.Tool, arguments: dict[str, Any],
                    cancelled: threading.Event) -> None:
        try:
            try:
                result = tool.run(_CallContext(self, request, cancelled), arguments)
            finally:
                with self._lock:
                    self._active.pop(request.id, None)
            if result is None or cancelled.is_set():
                # A cancelled request gets no response
                # (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).
                log.info("tools/call %s (id %r) cancelled; not answering", tool.name, request.id)
                return
            self._reply(request, result)
        except Exception as exc:
            log.exception("tool %s failed", tool.name)
            self._send_error(request.id, RpcError(protocol.INTERNAL_ERROR, "Internal error", str(exc)))
        finally:
            with self._lock:
                self._workers.discard(threading.current_thread())

    def _resources_list(self, request: Request) -> dict[str, Any]:
        return {"resources": content.list_resources()}

    def _resource_templates_list(self, request: Request) -> dict[str, Any]:
        return {"resourceTemplates": content.list_resource_templates()}

    def _resources_read(self, request: Request) -> dict[str, Any]:
        names = [tool.name for tool in tools.TOOLS]
        return {"contents": content.read_resource(request.params.get("uri"), names, modern=request.era == MODERN)}

    def _prompts_list(self, request: Request) -> dict[str, Any]:
        return {"prompts": content.PROMPTS}

    def _prompts_get(self, request: Request) -> dict[str, Any]:
        return content.get_prompt(request.params.get("name"), request.params.get("arguments"))

    def _complete(self, request: Request) -> dict[str, Any]:
        return {"completion": content.complete(request.params)}

    # ------------------------------------------------------------ notifications and responses

    def _handle_notification(self, method: str, params: Any) -> None:
        """Client notifications never get an answer, even when malformed."""
        params = params if isinstance(params, dict) else {}
        if method == "notifications/initialized":
            self.session.initialized = True
        elif method == "notifications/cancelled":
            self._cancel(params.get("requestId"), params.get("reason"))
        else:
            log.debug("ignoring notification %s", method)

    def _cancel(self, request_id: Any, reason: Any) -> None:
        """Stop a running background call and anything it is waiting for.

        Unknown or finished ids are ignored, as the spec allows for the race
        between completion and cancellation.
        """
        with self._lock:
            if protocol.is_valid_id(request_id) and request_id in self._subscriptions:
                self._subscriptions.discard(request_id)
                log.info("subscription %r closed by the client (reason: %s)", request_id, reason)
                return
            cancelled = self._active.get(request_id) if protocol.is_valid_id(request_id) else None
            waiters = [p for p in self._pending.values() if p.owner == request_id] if cancelled else []
        if cancelled is None:
            log.info("notifications/cancelled for %r: not running (reason: %s)", request_id, reason)
            return
        log.info("cancelling request %r (reason: %s)", request_id, reason)
        cancelled.set()
        for waiter in waiters:
            waiter.event.set()

    def _handle_response(self, message: dict[str, Any]) -> None:
        """A client's answer to one of our requests (``sampling/createMessage``)."""
        response_id = message.get("id")
        with self._lock:
            pending = self._pending.pop(response_id, None) if isinstance(response_id, str) else None
        if pending is None:
            log.warning("response for unknown request id %r ignored", response_id)
            return
        pending.response = message
        pending.event.set()

    # ------------------------------------------------------------ server-to-client requests

    def request_sampling(self, owner: Any, cancelled: threading.Event, params: dict[str, Any]) -> SamplingOutcome:
        """Send ``sampling/createMessage`` and block until the client answers.

        Legacy era only (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
        Waits at most the sampling timeout; on timeout it tells the client with
        ``notifications/cancelled`` so the client can stop too.
        """
        with self._lock:
            if self._stdin_closed:
                return SamplingOutcome(failure="stdin is closed: the client can no longer answer")
            self._sampling_seq += 1
            out_id = f"s-{self._sampling_seq}"
            pending = _Pending(owner=owner)
            self._pending[out_id] = pending
        self.writer.send(protocol.request(out_id, "sampling/createMessage", params))
        answered = pending.event.wait(self._sampling_timeout)
        with self._lock:
            self._pending.pop(out_id, None)
        if cancelled.is_set():
            return SamplingOutcome(cancelled=True)
        if not answered:
            self.writer.send(
                protocol.notification("notifications/cancelled", {"requestId": out_id, "reason": "timed out"})
            )
            return SamplingOutcome(failure="the client did not answer sampling/createMessage within "
                                           f"{self._sampling_timeout:g} s")
        if pending.closed or pending.response is None:
            return SamplingOutcome(failure="stdin closed before the client answered sampling/createMessage")
        response = pending.response
        if "error" in response:
            error = response["error"]
            return SamplingOutcome(error=error if isinstance(error, dict) else {"message": str(error)})
        result = response.get("result")
        if not isinstance(result, dict):
            return SamplingOutcome(failure="the client's sampling/createMessage result is not an object")
        return SamplingOutcome(result=result)

    # ------------------------------------------------------------ process-level helpers

    def write_stderr(self, data: bytes) -> None:
        """Raw bytes to stderr, after anything the logging module buffered."""
        with self._stderr_lock:
            sys.stderr.flush()
            self._stderr.write(data)
            self._stderr.flush()

    def exit_process(self, code: int, message: str) -> NoReturn:
        """Write ``message`` to stderr and end the process at once, unanswered.

        Holding the stdout lock guarantees no other thread is halfway through
        a message when the process disappears.
        """
        self.write_stderr(message.encode("utf-8", "surrogatepass") + b"\n")
        with self.writer.hold():
            self._exit_hook(code)
        raise AssertionError("unreachable")  # only if a test exit_hook returns

    def _wind_down(self) -> None:
        """At stdin EOF: release waiters, give workers a moment, then stop them."""
        with self._lock:
            self._stdin_closed = True
            for pending in self._pending.values():
                pending.closed = True
                pending.event.set()
        self._join_workers(EOF_GRACE_S)
        with self._lock:
            for cancelled in self._active.values():
                cancelled.set()
        self._join_workers(EOF_CANCEL_WAIT_S)
        # Nothing may be written once the interpreter starts finalising:
        # a daemon thread caught mid-write could abort the process.
        self.writer.close()

    def _join_workers(self, budget: float) -> None:
        deadline = time.monotonic() + budget
        while True:
            with self._lock:
                workers = list(self._workers)
            remaining = deadline - time.monotonic()
            if not workers or remaining <= 0:
                return
            workers[0].join(remaining)


# ---------------------------------------------------------------- command line


def build_arg_parser() -> argparse.ArgumentParser:
    """Flags that make the server misbehave at start-up, for framing tests."""
    parser = argparse.ArgumentParser(
        prog="python -m inspector.demo",
        description=(
            "Demo MCP server bundled with mcp-inspector: stdio, dual-era "
            "(legacy initialize and 2026-07-28). Reads JSON-RPC on stdin, "
            "writes it on stdout, logs on stderr."
        ),
    )
    parser.add_argument(
        "--banner",
        metavar="TEXT",
        help="print TEXT and a newline to stdout before anything else (a non-JSON banner)",
    )
    parser.add_argument(
        "--stderr-lines",
        metavar="N",
        type=int,
        default=0,
        help="write N log lines to stderr at start (default: 0)",
    )
    return parser


def _configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[mcp-inspector-demo] %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m inspector.demo``; returns the exit status."""
    args = build_arg_parser().parse_args(argv)
    _configure_logging()
    writer = StdoutWriter(sys.stdout.buffer)
    server = DemoServer(writer, sys.stderr.buffer)
    if args.banner is not None:
        writer.write_raw(args.banner.encode("utf-8", "surrogateescape") + b"\n")
    for i in range(1, max(args.stderr_lines, 0) + 1):
        server.write_stderr(f"[mcp-inspector-demo] startup log line {i}/{args.stderr_lines}\n".encode("ascii"))
    log.info("ready: %s %s on stdio", protocol.SERVER_NAME, protocol.server_version())
    try:
        return server.serve(sys.stdin.buffer)
    except KeyboardInterrupt:
        return 130
