"""What every scenario server does, sans-io: each message of the client in, the lines to write out.

:meth:`Script.receive` takes one decoded event of the client's and the time (``now``, monotonic seconds: the
clock is the caller's, so scenarios are tested without waiting) and returns the lines to send, in order;
:meth:`Script.tick` is called once :attr:`Script.deadline` has passed and returns what is due then. When
:attr:`Script.exit_code` is set the server ends after sending what it was given.

The plain server: a legacy MCP server of ``revision`` (2025-11-25 by default) with one tool, ``echo``. It answers
``initialize`` (the client's revision when it is one of the initialize era, else its own), refuses
``server/discover`` with "Method not found" as a server of the initialize era does (an ``auto`` client falls back
to ``initialize``), answers ``ping``, ``tools/list`` and ``tools/call``, and any other request with "Method not
found". Scenarios change one thing each (:mod:`.scenarios`).

A scenario that asks the client something (ping, sampling, elicitation, roots) does it when the client's first
request after the handshake comes, and holds the answer to that request until the client answers (or
:data:`ASK_WAIT` passes): so a client that answers is seen to, whatever it does next, and one that never answers
gets its own request answered late instead of never.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.protocol.revisions import HANDSHAKE_REVISIONS, STATELESS_FROM
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind

DEFAULT_REVISION = "2025-11-25"
#: How long a scenario waits for the client's answer to its own request before answering the client's.
ASK_WAIT = 5.0
SERVER_INFO = {"name": "mcp-inspector scenario server", "version": "1"}
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
PARSE_ERROR = -32700
#: The requests a client sends to open the session, which never trigger a scenario's question.
HANDSHAKE = frozenset({"initialize", "server/discover", "ping"})
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
ECHO = {"name": "echo", "description": "Echoes its text back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def result(msg_id: Any, body: dict[str, Any]) -> bytes:
    return line({"jsonrpc": "2.0", "id": msg_id, "result": body})


def error(msg_id: Any, code: int, message: str, data: Any = None) -> bytes:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return line({"jsonrpc": "2.0", "id": msg_id, "error": err})


def parse(event: Event) -> Any:
    """The JSON value of a message event (None when it is no message or no JSON)."""
    if event.kind != Kind.MESSAGE:
        return None
    try:
        return json.loads(event.raw)
    except (ValueError, RecursionError):
        return None


class Script:
    """The plain scenario server; see the module's notes. Subclasses override the ``on_*`` hooks."""

    #: the scenario's name, as ``--scenario`` gives it
    name = "plain"
    #: one line for ``--list-scenarios``
    summary = ""

    def __init__(self, revision: str | None = None) -> None:
        #: the revision the server speaks: given (``--revision``), it answers initialize with it whatever the
        #: client asks (as a server that supports only it); else the client's own when it is of the initialize
        #: era, or :data:`DEFAULT_REVISION`
        self.revision = revision or DEFAULT_REVISION
        self.pinned = revision is not None
        self.exit_code: int | None = None
        self.deadline: float | None = None
        self.client_capabilities: dict[str, Any] | None = None
        self.initialized = False
        self.handshake_done = False
        self.asked: dict[Any, str] = {}  #: our requests' ids -> their methods
        self.answered: set[Any] = set()
        self._next_id = 1
        self._held: list[bytes] = []
        self._holding_for: Any = None
        self._asked_once = False

    # -- the loop's side ---------------------------------------------------------------------------------

    def receive(self, event: Event, now: float) -> list[bytes]:
        """What to send for one event of the client's."""
        if event.kind == Kind.FRAMING_ERROR:
            return [error(None, PARSE_ERROR, "Parse error")]
        value = parse(event)
        rpc = event.rpc
        if rpc is None or not isinstance(value, dict):
            return []
        if rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
            return self._answer(rpc.id, value, now)
        if rpc.kind == jsonrpc.NOTIFICATION:
            return self._notified(rpc.method or "", value.get("params"), now)
        if rpc.kind != jsonrpc.REQUEST:
            return []
        method = rpc.method or ""
        given = value.get("params")
        params: dict[str, Any] = given if isinstance(given, dict) else {}
        meta = params.get("_meta")
        caps = meta.get(META_CAPABILITIES) if isinstance(meta, dict) else None
        if isinstance(caps, dict):  # 2026-07-28: the client's capabilities come with each request
            self.client_capabilities = caps
        out: list[bytes] = []
        if method not in HANDSHAKE and not self._asked_once:
            self._asked_once = True
            self.handshake_done = True
            asked = self.on_first_request(method, now)
            out += asked
            if asked and self.asked and self._holding_for is None:
                self._holding_for = next(reversed(self.asked))
                self.deadline = now + ASK_WAIT
        answer = self.answer(rpc.id, method, params, now)
        return out + self._send_or_hold(answer)

    def tick(self, now: float) -> list[bytes]:
        """What is due once :attr:`deadline` has passed (a held answer, a slow one)."""
        if self.deadline is None or now < self.deadline:
            return []
        self.deadline = None
        return self.on_deadline(now)

    # -- hooks -------------------------------------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        return {"tools": {}}

    def tools(self) -> list[dict[str, Any]]:
        return [ECHO]

    def on_first_request(self, method: str, now: float) -> list[bytes]:
        """The client's first request after the handshake: what to send before answering it (a question)."""
        return []

    def on_deadline(self, now: float) -> list[bytes]:
        """The wait for the client's answer is over: the held answers go out."""
        return self._release()

    def on_answer(self, msg_id: Any, method: str, value: dict[str, Any], now: float) -> list[bytes]:
        return []

    def on_notification(self, method: str, params: Any, now: float) -> list[bytes]:
        return []

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        """The answer to one request of the client's (a list: a scenario may add to it or hold it)."""
        if method == "initialize":
            return [self.initialize(msg_id, params)]
        if method == "server/discover":
            return [self.discover(msg_id, params)]
        if method == "ping":
            return [result(msg_id, self.complete({}))]
        if method == "tools/list":
            return [result(msg_id, self.complete({"tools": self.tools()}, cacheable=True))]
        if method == "tools/call":
            return [self.call(msg_id, params)]
        return [error(msg_id, METHOD_NOT_FOUND, "Method not found", {"method": method})]

    # -- the plain server's answers ----------------------------------------------------------------------

    def initialize(self, msg_id: Any, params: dict[str, Any]) -> bytes:
        asked = params.get("protocolVersion")
        caps = params.get("capabilities")
        self.client_capabilities = caps if isinstance(caps, dict) else {}
        known = isinstance(asked, str) and asked in HANDSHAKE_REVISIONS and not self.pinned
        version = asked if known else self.revision
        return result(msg_id, {"protocolVersion": version, "capabilities": self.capabilities(),
                               "serverInfo": SERVER_INFO})

    def discover(self, msg_id: Any, params: dict[str, Any]) -> bytes:
        return error(msg_id, METHOD_NOT_FOUND, "Method not found", {"method": "server/discover"})

    def call(self, msg_id: Any, params: dict[str, Any]) -> bytes:
        name = params.get("name")
        if name not in {tool["name"] for tool in self.tools()}:
            return error(msg_id, INVALID_PARAMS, f"Unknown tool: {name}")
        arguments = params.get("arguments")
        text = arguments.get("text") if isinstance(arguments, dict) else None
        return result(msg_id, self.complete({"content": [{"type": "text", "text": str(text or "")}],
                                             "isError": False}))

    def complete(self, body: dict[str, Any], *, cacheable: bool = False) -> dict[str, Any]:
        """A result as the revision wants it (2026-07-28 results say their type, lists their caching)."""
        if self.revision >= STATELESS_FROM:
            body = {**body, "resultType": "complete"}
            if cacheable:
                body.update(cacheScope="private", ttlMs=0)
        return body

    def capable(self, name: str) -> bool:
        """Whether the client declared the capability ``name`` (in ``initialize``, or a request's ``_meta``)."""
        caps = self.client_capabilities or {}
        return isinstance(caps.get(name), dict)

    def ask(self, method: str, params: dict[str, Any] | None = None) -> bytes:
        """A request of ours to the client."""
        msg_id = self._next_id
        self._next_id += 1
        self.asked[msg_id] = method
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        return line(message)

    # -- holding ------------------------------------------------------------------------------------------

    def _send_or_hold(self, lines: list[bytes]) -> list[bytes]:
        if self._holding_for is not None:
            self._held += lines
            return []
        return lines

    def _release(self) -> list[bytes]:
        held, self._held, self._holding_for = self._held, [], None
        return held

    def _answer(self, msg_id: Any, value: dict[str, Any], now: float) -> list[bytes]:
        method = self.asked.get(msg_id)
        if method is None or msg_id in self.answered:
            return []
        self.answered.add(msg_id)
        out = self.on_answer(msg_id, method, value, now)
        if msg_id == self._holding_for:
            self.deadline = None
            out += self._release()
        return out

    def _notified(self, method: str, params: Any, now: float) -> list[bytes]:
        if method == "notifications/initialized":
            self.initialized = True
        return self.on_notification(method, params, now)
