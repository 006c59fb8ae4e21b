"""The named scenarios: each a :class:`~inspector.core.clientbench.script.Script` that changes one thing of the
plain server (what it checks is :mod:`.verdicts`'). docs/client-bench.md describes each."""

from __future__ import annotations

from typing import Any

from inspector.core.clientbench.script import (
    ECHO,
    INVALID_PARAMS,
    SERVER_INFO,
    Script,
    error,
    line,
    result,
)
from inspector.core.protocol.revisions import STATELESS_FROM

#: How long the ``slow`` scenario takes to answer: well within any client's own request timeout (the Python
#: SDK's and the TypeScript SDK's are 60 s and more), long enough that a client which gives up at once is seen.
SLOW_SECONDS = 2.0
#: The first line the ``junk-stdout`` server writes: a banner, as servers that print before speaking do.
BANNER = b"mcp scenario server 1.0 starting... (a banner line on stdout, no JSON-RPC message)"
#: The ``pagination`` server's tools/list pages and the opaque cursors that lead to them.
PAGES = ({"name": "echo", **{k: v for k, v in ECHO.items() if k != "name"}},
         {"name": "echo-page-2", **{k: v for k, v in ECHO.items() if k != "name"}},
         {"name": "echo-page-3", **{k: v for k, v in ECHO.items() if k != "name"}})
CURSORS = ("", "b3BhcXVlLTI", "b3BhcXVlLTM")  # page 1 has no cursor
#: The ``list-changed`` server's tools before and after the change.
BEFORE_CHANGE = "old-tool"
AFTER_CHANGE = "new-tool"
UNSUPPORTED_VERSION = -32022
#: The ``unknown-notification`` server's notification: a method no revision defines.
UNKNOWN_NOTIFICATION = "notifications/mcp-inspector/unknown"
#: The size of the ``big-result`` server's tools/call text.
BIG_RESULT_BYTES = 4 << 20


class Handshake(Script):
    name = "handshake"
    summary = ("a server of the initialize era: the client initializes, sends notifications/initialized before "
               "anything else, lists and calls tools")


class Ping(Script):
    name = "ping"
    summary = "the server pings the client after the handshake: the client must answer with an empty result"

    def on_first_request(self, method: str, now: float) -> list[bytes]:
        return [self.ask("ping")]


class ListChanged(Script):
    name = "list-changed"
    summary = ("the server declares tools.listChanged, and changes its tools after the first tools/list: a "
               "client that lists again must use the new list")

    def __init__(self, revision: str | None = None) -> None:
        super().__init__(revision)
        self.changed = False

    def capabilities(self) -> dict[str, Any]:
        return {"tools": {"listChanged": True}}

    def tools(self) -> list[dict[str, Any]]:
        other = AFTER_CHANGE if self.changed else BEFORE_CHANGE
        return [ECHO, {**ECHO, "name": other, "description": f"{ECHO['description']} ({other})"}]

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        out = super().answer(msg_id, method, params, now)
        if method == "tools/list" and not self.changed:
            self.changed = True
            out.append(line({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
        return out


class JunkStdout(Script):
    name = "junk-stdout"
    summary = "the server writes a banner line (no JSON) on stdout before its first answer: a robust client goes on"

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        out = super().answer(msg_id, method, params, now)
        if method in ("initialize", "server/discover") and not getattr(self, "_bannered", False):
            self._bannered = True
            out.insert(0, BANNER)
        return out


class Slow(Script):
    name = "slow"
    summary = f"the server answers the client's first request after the handshake {SLOW_SECONDS:g} s late"

    def __init__(self, revision: str | None = None) -> None:
        super().__init__(revision)
        self.slow_id: Any = None
        self._slow: list[bytes] = []

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        out = super().answer(msg_id, method, params, now)
        if self.slow_id is None and self.handshake_done:
            self.slow_id = msg_id
            self._slow = out
            self.deadline = now + SLOW_SECONDS
            return []
        return out

    def on_deadline(self, now: float) -> list[bytes]:
        out, self._slow = self._slow, []
        return out

    def on_notification(self, method: str, params: Any, now: float) -> list[bytes]:
        if method == "notifications/cancelled" and isinstance(params, dict) and params.get("requestId") == self.slow_id:
            self._slow = []  # a cancelled request is not answered (the spec's SHOULD)
            self.deadline = None
        return []


class Crash(Script):
    name = "crash"
    summary = "the server exits mid-session, at the client's first request after the handshake: the client must end"

    def on_first_request(self, method: str, now: float) -> list[bytes]:
        self.exit_code = 1
        return []

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        if self.exit_code is not None:
            return []
        return super().answer(msg_id, method, params, now)


class _Asks(Script):
    """Asks the client ``method`` when it declared ``capability``."""

    capability = ""
    method = ""

    def params(self) -> dict[str, Any] | None:
        return None

    def on_first_request(self, method: str, now: float) -> list[bytes]:
        if not self.capable(self.capability):
            return []
        return [self.ask(self.method, self.params())]


class Sampling(_Asks):
    name = "sampling"
    summary = "the server asks the client for a completion (sampling/createMessage), when it declared sampling"
    capability = "sampling"
    method = "sampling/createMessage"

    def params(self) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}], "maxTokens": 50}


class Elicitation(_Asks):
    name = "elicitation"
    summary = ("the server asks the user a question through the client (elicitation/create), when it declared "
               "elicitation")
    capability = "elicitation"
    method = "elicitation/create"

    def params(self) -> dict[str, Any]:
        return {"message": "Which colour?", "requestedSchema": {
            "type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}}


class Roots(_Asks):
    name = "roots"
    summary = "the server asks the client for its roots (roots/list), when it declared roots"
    capability = "roots"
    method = "roots/list"


class Pagination(Script):
    name = "pagination"
    summary = "tools/list answers in three pages, each with an opaque nextCursor to the next"

    def tools(self) -> list[dict[str, Any]]:
        return list(PAGES)

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        if method != "tools/list":
            return super().answer(msg_id, method, params, now)
        cursor = params.get("cursor", "")
        if cursor not in CURSORS:
            return [error(msg_id, INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})]
        page = CURSORS.index(cursor)
        body: dict[str, Any] = {"tools": [PAGES[page]]}
        if page + 1 < len(PAGES):
            body["nextCursor"] = CURSORS[page + 1]
        return [result(msg_id, self.complete(body, cacheable=True))]


class LegacyFallback(Script):
    name = "legacy-fallback"
    summary = ("a server of the initialize era that refuses server/discover (Method not found): a client that "
               "probes must fall back to initialize")


class Modern(Script):
    name = "modern"
    summary = ("a 2026-07-28-only server: initialize is refused with -32022, server/discover lists 2026-07-28, "
               "and every request must carry its revision in _meta")

    def __init__(self, revision: str | None = None) -> None:
        super().__init__(STATELESS_FROM)  # whatever --revision says: this server speaks only 2026-07-28

    def initialize(self, msg_id: Any, params: dict[str, Any]) -> bytes:
        asked = params.get("protocolVersion")
        return error(msg_id, UNSUPPORTED_VERSION, "Unsupported protocol version",
                     {"supported": [STATELESS_FROM], "requested": asked if isinstance(asked, str) else ""})

    def discover(self, msg_id: Any, params: dict[str, Any]) -> bytes:
        return result(msg_id, self.complete({
            "supportedVersions": [STATELESS_FROM], "capabilities": self.capabilities(),
            "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}}, cacheable=True))


class UnknownNotification(Script):
    name = "unknown-notification"
    summary = "the server sends a notification no revision defines before its answer: the client must ignore it"

    def on_first_request(self, method: str, now: float) -> list[bytes]:
        return [line({"jsonrpc": "2.0", "method": UNKNOWN_NOTIFICATION, "params": {"note": "ignore me"}})]


class DuplicateResponse(Script):
    name = "duplicate-response"
    summary = "the server answers the client's first request after the handshake twice: the client must go on"

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        out = super().answer(msg_id, method, params, now)
        if self.handshake_done and not getattr(self, "_doubled", False):
            self._doubled = True
            out = out + out[-1:]
        return out


class BigResult(Script):
    name = "big-result"
    summary = f"tools/call answers with {BIG_RESULT_BYTES >> 20} MiB of text in one message: the client must cope"

    def call(self, msg_id: Any, params: dict[str, Any]) -> bytes:
        if params.get("name") not in {tool["name"] for tool in self.tools()}:
            return super().call(msg_id, params)
        return result(msg_id, self.complete({"content": [{"type": "text", "text": "x" * BIG_RESULT_BYTES}],
                                             "isError": False}))


class NoAnswer(Script):
    name = "no-answer"
    summary = ("the server never answers the client's first request after the handshake: the client should time "
               "out and cancel it (not run by default: it lasts as long as the client's own timeout)")

    def __init__(self, revision: str | None = None) -> None:
        super().__init__(revision)
        self.silent_id: Any = None

    def answer(self, msg_id: Any, method: str, params: dict[str, Any], now: float) -> list[bytes]:
        if self.silent_id is None and self.handshake_done:
            self.silent_id = msg_id
            return []
        return super().answer(msg_id, method, params, now)


#: Every scenario, in the order they run (those of :data:`~.names.DEFAULT_SCENARIOS` by default).
SCENARIOS: dict[str, type[Script]] = {cls.name: cls for cls in (
    Handshake, Ping, ListChanged, JunkStdout, Slow, Crash, Sampling, Elicitation, Roots, Pagination,
    LegacyFallback, Modern, UnknownNotification, DuplicateResponse, BigResult, NoAnswer)}


def make(name: str, revision: str | None = None) -> Script:
    """The script of the scenario ``name`` (a KeyError when there is none), speaking ``revision`` when given."""
    return SCENARIOS[name](revision)
